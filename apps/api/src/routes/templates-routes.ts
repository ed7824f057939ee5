import type { Router } from "express";
import type { SvcConfig } from "@svc/config";
import { AppError, renderTemplate, type TemplateDefinition } from "@svc/core";
import { previewRecipient, templatesResource } from "@svc/engine";
import type { PrismaClient } from "@svc/store";

interface PreviewRequest {
  locale?: string;
  channel?: string;
  recipient?: string;
  data?: Record<string, unknown>;
}

type Deps = { prisma: PrismaClient; now: () => Date; config: Pick<SvcConfig, "channels"> };

// E-mail bodies are HTML and autoescaped (DECISIONS "Templates"): a channel is e-mail when smtp sends it.
function isEmailChannel(config: Deps["config"], channel: string | undefined): boolean {
  const settings = channel === undefined ? undefined : config.channels[channel];
  if (!settings) return false;
  return settings.provider === "smtp" || (settings.providers ?? []).includes("smtp");
}

/** POST /v1/templates/{key}/preview: renders as a message would be, sends nothing. */
export function templatePreviewRoutes(router: Router, deps: Deps): void {
  router.post("/v1/templates/:key/preview", async (req, res) => {
    const body = req.body as PreviewRequest;
    const template = await templatesResource(deps).get(req.params.key as string);
    const recipient = await previewRecipient(deps, body.recipient);
    const result = renderTemplate({
      template: template as unknown as TemplateDefinition,
      locale: body.locale ?? recipient?.locale ?? null,
      channel: body.channel ?? null,
      html: isEmailChannel(deps.config, body.channel),
      context: {
        data: body.data ?? {},
        recipient: recipient ?? {},
        event: { id: "evt_preview", name: "preview", created_at: deps.now().toISOString() },
      },
    });
    if (!result.ok) {
      throw new AppError("unprocessable", result.detail, {
        errors: [{ loc: ["body"], msg: result.detail, type: "template_error" }],
      });
    }
    res.json({ locale: result.locale, channel: result.channel, ...result.content });
  });
}
