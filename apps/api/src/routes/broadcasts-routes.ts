import type { Router } from "express";
import type { BroadcastAction } from "@svc/core";
import {
  actOnBroadcast,
  createBroadcast,
  getBroadcast,
  listBroadcasts,
  updateBroadcast,
  type BroadcastInput,
  type BroadcastPatchInput,
  type ListBroadcastsQuery,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import type { RouteDeps } from "./route-deps";

const ACTIONS: BroadcastAction[] = ["start", "pause", "resume", "cancel"];

export function broadcastsRoutes(router: Router, deps: RouteDeps): void {
  router.post("/v1/broadcasts", async (req, res) => {
    res.status(201).json(await createBroadcast(deps, principalOf(res), req.body as BroadcastInput));
  });
  router.get("/v1/broadcasts", async (req, res) => {
    res.json(await listBroadcasts(deps, req.query as unknown as ListBroadcastsQuery));
  });
  router.get("/v1/broadcasts/:id", async (req, res) => {
    res.json(await getBroadcast(deps, req.params.id as string));
  });
  router.put("/v1/broadcasts/:id", async (req, res) => {
    res.json(await updateBroadcast(deps, req.params.id as string, req.body as BroadcastInput, "replace"));
  });
  router.patch("/v1/broadcasts/:id", async (req, res) => {
    res.json(await updateBroadcast(deps, req.params.id as string, req.body as BroadcastPatchInput, "change"));
  });
  for (const action of ACTIONS) {
    router.post(`/v1/broadcasts/:id/${action}`, async (req, res) => {
      res.json(await actOnBroadcast(deps, req.params.id as string, action));
    });
  }
}
