import type { Router } from "express";
import { recordMessageEngagement, recordTrackedEngagement, type EngagementInput } from "@svc/engine";
import type { RootDatabase } from "@svc/store";
import { principalOf } from "../auth/require-key";

export function engagementRoutes(router: Router, deps: { prisma: RootDatabase; now: () => Date }): void {
  router.post("/v1/messages/:id/engagement", async (req, res) => {
    res
      .status(202)
      .json(
        await recordMessageEngagement(
          deps,
          principalOf(res),
          req.params.id as string,
          req.body as EngagementInput,
        ),
      );
  });
  router.post("/v1/track/:token", async (req, res) => {
    res
      .status(202)
      .json(await recordTrackedEngagement(deps, req.params.token as string, req.body as EngagementInput));
  });
}
