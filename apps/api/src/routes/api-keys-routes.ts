import type { Router } from "express";
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from "@svc/engine";
import type { RootDatabase } from "@svc/store";
import { principalOf } from "../auth/require-key";
import { pageQuery } from "../http/page-query";

export function apiKeysRoutes(router: Router, deps: { prisma: RootDatabase; now: () => Date }) {
  router.get("/v1/api-keys", async (req, res) => {
    res.json(await listApiKeys(deps, pageQuery(req)));
  });
  router.post("/v1/api-keys", async (req, res) => {
    res.status(201).json(await createApiKey(deps, req.body));
  });
  // The calling key (docs/api.md "Authentication"): any valid key may read itself.
  router.get("/v1/whoami", async (_req, res) => {
    res.json(await getApiKey(deps, principalOf(res).keyId));
  });
  router.get("/v1/api-keys/:id", async (req, res) => {
    res.json(await getApiKey(deps, req.params.id as string));
  });
  router.post("/v1/api-keys/:id/revoke", async (req, res) => {
    res.json(await revokeApiKey(deps, req.params.id as string));
  });
}
