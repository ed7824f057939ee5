import type { Request, Router } from "express";
import {
  addAddress,
  getRecipient,
  listRecipients,
  putPreferences,
  putRecipient,
  removeAddress,
} from "@svc/engine";
import type { SvcConfig } from "@svc/config";
import type { RootDatabase } from "@svc/store";
import { principalOf } from "../auth/require-key";
import { pageQuery } from "../http/page-query";

const externalIdOf = (req: Request) => req.params.external_id as string;

/** Recipients, addresses and preferences (docs/preferences.md); the key decides what it may see and write. */
export function recipientsRoutes(
  router: Router,
  deps: { prisma: RootDatabase; now: () => Date; config: Pick<SvcConfig, "compliance" | "channels"> },
): void {
  router.get("/v1/recipients", async (req, res) => {
    res.json(await listRecipients(deps, principalOf(res), pageQuery(req)));
  });
  router.get("/v1/recipients/:external_id", async (req, res) => {
    res.json(await getRecipient(deps, principalOf(res), externalIdOf(req)));
  });
  router.put("/v1/recipients/:external_id", async (req, res) => {
    const { created, recipient } = await putRecipient(deps, principalOf(res), externalIdOf(req), req.body);
    res.status(created ? 201 : 200).json(recipient);
  });
  router.post("/v1/recipients/:external_id/addresses", async (req, res) => {
    const { created, address } = await addAddress(deps, principalOf(res), externalIdOf(req), req.body);
    res.status(created ? 201 : 200).json(address);
  });
  router.delete("/v1/recipients/:external_id/addresses/:channel/:value", async (req, res) => {
    const { external_id, channel, value } = req.params as Record<string, string>;
    await removeAddress(deps, principalOf(res), external_id!, channel!, value!);
    res.status(204).end();
  });
  router.put("/v1/recipients/:external_id/preferences", async (req, res) => {
    res.json(await putPreferences(deps, principalOf(res), externalIdOf(req), req.body));
  });
}
