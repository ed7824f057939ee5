import type { Router } from "express";
import {
  acceptEvent,
  createEventBatcher,
  getEvent,
  listEvents,
  type AcceptEventDeps,
  type EventInput,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { sendJson } from "../http/send-json";
import { pageQuery } from "../http/page-query";
import { eventBatchRoute } from "./event-batch-route";

export function eventsRoutes(router: Router, deps: AcceptEventDeps) {
  // One batcher per app: concurrent accepts share an INSERT and a bulk enqueue (group commit).
  const accept = { ...deps, eventBatcher: deps.eventBatcher ?? createEventBatcher(deps) };
  router.post("/v1/events", async (req, res) => {
    const { event, duplicate } = await acceptEvent(accept, principalOf(res), req.body as EventInput);
    sendJson(res, duplicate ? 200 : 202, { ...event, duplicate });
  });
  eventBatchRoute(router, deps);
  router.get("/v1/events", async (req, res) => {
    res.json(await listEvents(deps, principalOf(res), pageQuery(req)));
  });
  router.get("/v1/events/:id", async (req, res) => {
    res.json(await getEvent(deps, principalOf(res), req.params.id as string));
  });
}
