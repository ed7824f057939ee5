import type { Router } from "express";
import type { SvcConfig } from "@svc/config";
import {
  cancelMessage,
  decideMessageByKey,
  getMessage,
  listMessages,
  sendMessage,
  type ListMessagesQuery,
  type SendMessageInput,
} from "@svc/engine";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import type { PrismaClient } from "@svc/store";
import { principalOf } from "../auth/require-key";
import { reasonOf } from "./approvals-routes";

export interface MessagesRouteDeps {
  prisma: PrismaClient;
  config: SvcConfig;
  logger: Logger;
  now: () => Date;
  queues: Queues;
}

export function messagesRoutes(router: Router, deps: MessagesRouteDeps): void {
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
  router.post("/v1/messages/:id/approve", async (req, res) => {
    const comment = reasonOf(req.body);
    res.json(
      await decideMessageByKey(deps, principalOf(res), req.params.id as string, {
        action: "approve",
        comment,
      }),
    );
  });
  router.post("/v1/messages/:id/reject", async (req, res) => {
    const reason = reasonOf(req.body);
    res.json(
      await decideMessageByKey(deps, principalOf(res), req.params.id as string, { action: "reject", reason }),
    );
  });
}
