import type { Router } from "express";
import {
  cancelMessage,
  decideMessageByKey,
  getMessage,
  listMessages,
  sendMessage,
  type ListMessagesQuery,
  type SendMessageInput,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { decisionRoutes } from "./decision-routes";
import type { RouteDeps } from "./route-deps";

export function messagesRoutes(router: Router, deps: RouteDeps): void {
  router.post("/v1/messages", async (req, res) => {
    const { created, message } = await sendMessage(deps, principalOf(res), req.body as SendMessageInput);
    res.status(created ? 202 : 200).json(message);
  });
  router.get("/v1/messages", async (req, res) => {
    res.json(await listMessages(deps, principalOf(res), req.query as unknown as ListMessagesQuery));
  });
  router.get("/v1/messages/:id", async (req, res) => {
    res.json(await getMessage(deps, principalOf(res), req.params.id as string));
  });
  router.post("/v1/messages/:id/cancel", async (req, res) => {
    res.json(await cancelMessage(deps, principalOf(res), req.params.id as string));
  });
  decisionRoutes(router, "/v1/messages", (principal, id, decision) =>
    decideMessageByKey(deps, principal, id, decision),
  );
}
