import type { SvcConfig } from "@svc/config";
import { AppError, type RenderedContent } from "@svc/core";
import type { RootDatabase } from "@svc/store";
import { isEmailChannel } from "../compose/message-content";
import { renderPool } from "../rendering/render-pool";
import { previewRecipient } from "./preview-recipient";
import { templateDefinition } from "../shared/template-definition";
import { templatesResource } from "./templates-resource";

export interface TemplatePreviewRequest {
  locale?: string;
  channel?: string;
  /** External id of a stored recipient whose profile renders as `recipient`. */
  recipient?: string;
  data?: Record<string, unknown>;
}

export interface TemplatePreview extends RenderedContent {
  locale: string;
  channel: string | null;
}

interface PreviewDeps {
  prisma: RootDatabase;
  now: () => Date;
  config: Pick<SvcConfig, "channels" | "render">;
}

/** Renders template `key` as a message would be (e-mail channels escaped), sends nothing. */
export async function previewTemplate(
  deps: PreviewDeps,
  key: string,
  request: TemplatePreviewRequest,
): Promise<TemplatePreview> {
  const template = await templatesResource(deps).row(key);
  const recipient = await previewRecipient(deps, request.recipient);
  // On a render thread: a hostile template or payload cannot hold up the API (docs/templates.md "Limits").
  const result = await renderPool(deps.config).renderTemplate({
    template: templateDefinition(template),
    locale: request.locale ?? recipient?.locale ?? null,
    channel: request.channel ?? null,
    html: request.channel !== undefined && isEmailChannel(deps.config, request.channel),
    context: {
      data: request.data ?? {},
      recipient: recipient ?? {},
      event: { id: "evt_preview", name: "preview", created_at: deps.now().toISOString() },
    },
  });
  if (!result.ok) {
    throw new AppError("unprocessable", result.detail, {
      errors: [{ loc: ["body"], msg: result.detail, type: "template_error" }],
    });
  }
  return { locale: result.locale, channel: result.channel, ...result.content };
}
