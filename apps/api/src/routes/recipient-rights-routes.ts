import type { Request, Router } from "express";
import type { SvcConfig } from "@svc/config";
import {
  changeOwnPreferences,
  eraseRecipient,
  getOwnPreferences,
  issuePreferenceToken,
  listPreferenceHistory,
  recordConsent,
} from "@svc/engine";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import type { PrismaClient } from "@svc/store";
import { principalOf } from "../auth/require-key";

export interface RecipientRightsDeps {
  prisma: PrismaClient;
  config: SvcConfig;
  logger: Logger;
  queues: Queues;
  now: () => Date;
}

/** The caller's address and user agent, for ledger provenance. */
export const requestOrigin = (req: Request) => ({
  ip: req.ip ?? null,
  user_agent: req.get("user-agent") ?? null,
});

/** Preference tokens, self-service preferences, consent ledger, opt-in records, erasure (SPEC 1.8, 2.10). */
export function recipientRightsRoutes(router: Router, deps: RecipientRightsDeps): void {
  router.post("/v1/recipients/:external_id/preference-token", async (req, res) => {
    res
      .status(201)
      .json(await issuePreferenceToken(deps, principalOf(res), req.params.external_id as string));
  });
  router.get("/v1/recipients/:external_id/preferences/history", async (req, res) => {
    const page = {
      limit: req.query.limit as number | undefined,
      cursor: req.query.cursor as string | undefined,
    };
    res.json(await listPreferenceHistory(deps, principalOf(res), req.params.external_id as string, page));
  });
  router.post("/v1/recipients/:external_id/consent", async (req, res) => {
    res
      .status(201)
      .json(await recordConsent(deps, principalOf(res), req.params.external_id as string, req.body));
  });
  router.delete("/v1/recipients/:external_id", async (req, res) => {
    await eraseRecipient(deps, principalOf(res), req.params.external_id as string);
    res.status(204).end();
  });
  router.get("/v1/preferences/:token", async (req, res) => {
    res.json(await getOwnPreferences(deps, req.params.token as string));
  });
  router.put("/v1/preferences/:token", async (req, res) => {
    const origin = requestOrigin(req);
    res.json(
      await changeOwnPreferences(deps, req.params.token as string, req.body, {
        method: "preference_api",
        ...origin,
      }),
    );
  });
}
