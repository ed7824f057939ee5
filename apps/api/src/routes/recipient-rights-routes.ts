import type { Router } from "express";
import {
  changeOwnPreferences,
  eraseRecipient,
  getOwnPreferences,
  issuePreferenceToken,
  listPreferenceHistory,
  recordConsent,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { pageQuery } from "../http/page-query";
import { requestOrigin } from "../http/request-origin";
import type { RouteDeps } from "./route-deps";

/** Preference tokens, self-service, consent ledger, opt-in records (docs/preferences.md), erasure (docs/erasure.md). */
export function recipientRightsRoutes(router: Router, deps: RouteDeps): void {
  router.post("/v1/recipients/:external_id/preference-token", async (req, res) => {
    res
      .status(201)
      .json(await issuePreferenceToken(deps, principalOf(res), req.params.external_id as string));
  });
  router.get("/v1/recipients/:external_id/preferences/history", async (req, res) => {
    const externalId = req.params.external_id as string;
    res.json(await listPreferenceHistory(deps, principalOf(res), externalId, pageQuery(req)));
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
