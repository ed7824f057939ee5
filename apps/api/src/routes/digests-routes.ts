import type { Router } from "express";
import { getDigest, listDigests, sendDigestNow, type ListDigestsQuery } from "@svc/engine";
import { principalOf } from "../auth/require-key";
import type { RouteDeps } from "./route-deps";

export function digestsRoutes(router: Router, deps: Omit<RouteDeps, "config">): void {
  router.get("/v1/digests", async (req, res) => {
    res.json(await listDigests(deps, principalOf(res), req.query as unknown as ListDigestsQuery));
  });
  router.get("/v1/digests/:id", async (req, res) => {
    res.json(await getDigest(deps, principalOf(res), req.params.id as string));
  });
  router.post("/v1/digests/:id/send", async (req, res) => {
    res.status(202).json(await sendDigestNow(deps, principalOf(res), req.params.id as string));
  });
}
