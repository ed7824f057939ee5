import type { RequestHandler, Router } from "express";
import {
  handleInboundSms,
  twilioWebhookAnswer,
  verifyTwilioWebhook,
  type ProviderWebhookAuth,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { getOperation } from "../http/openapi-validation";
import type { RouteDeps } from "./route-deps";

// Text replies (docs/texting.md): the backend's JSON report, and Twilio's signed form webhook.

const PROVIDER_WEBHOOK_OPERATION = "receiveTwilioSms";

/**
 * The webhook's credential is its signature, checked where API keys are (before validation), so
 * an unsigned request is 403 whatever its body.
 */
export function providerWebhookSignature(auth: ProviderWebhookAuth): RequestHandler {
  return (req, res, next) => {
    if (getOperation(res)?.operationId !== PROVIDER_WEBHOOK_OPERATION) return next();
    const params = (req.body ?? {}) as Record<string, string | string[]>;
    verifyTwilioWebhook(auth, {
      pathAndQuery: req.originalUrl,
      params: typeof params === "object" ? params : {},
      signature: req.get("x-twilio-signature"),
    });
    next();
  };
}

export function inboundRoutes(router: Router, deps: RouteDeps): void {
  router.post("/v1/inbound/sms", async (req, res) => {
    const { from, body, message_id } = req.body as { from: string; body: string; message_id: string };
    const principal = principalOf(res);
    res.json(
      await handleInboundSms(deps, { apiKeyId: principal.keyId }, { from, body, messageId: message_id }),
    );
  });
  router.post("/v1/inbound/smsprovider", async (req, res) => {
    const { From, Body, MessageSid } = req.body as { From: string; Body: string; MessageSid: string };
    await handleInboundSms(
      deps,
      { provider: "twilio" },
      { from: From, body: Body, messageId: MessageSid },
      { from: ["body", "From"] },
    );
    res.type("text/xml").send(twilioWebhookAnswer());
  });
}
