import type { Router } from "express";
import type { SvcConfig } from "@svc/config";
import { previewTemplate, type TemplatePreviewRequest } from "@svc/engine";
import type { RootDatabase } from "@svc/store";

type Deps = { prisma: RootDatabase; now: () => Date; config: Pick<SvcConfig, "channels" | "render"> };

/** POST /v1/templates/{key}/preview: renders as a message would be, sends nothing. */
export function templatePreviewRoutes(router: Router, deps: Deps): void {
  router.post("/v1/templates/:key/preview", async (req, res) => {
    res.json(await previewTemplate(deps, req.params.key as string, req.body as TemplatePreviewRequest));
  });
}
