import { createHash } from "node:crypto";
import { formatSourceError, renderSource } from "@svc/jinja";
import { templateContext, type RenderContext } from "./render-template";

export const GROUPING_KEY_MAX_LENGTH = 200;

export type GroupingKeyResult = { ok: true; key: string } | { ok: false; detail: string };

/**
 * Renders a rule's digest `key` template for one event (docs/templates.md, "Digest grouping keys").
 * No template means one group per rule (key ""). Surrounding whitespace is dropped; an overlong key
 * becomes its SHA-256, so distinct keys never merge by truncation.
 */
export function renderGroupingKey(
  template: string | null | undefined,
  context: RenderContext,
): GroupingKeyResult {
  if (template === null || template === undefined || template === "") return { ok: true, key: "" };
  const result = renderSource(template, templateContext(context));
  if (!result.ok) return { ok: false, detail: formatSourceError("digest.key", result.error) };
  const key = result.text.trim();
  if (key.length <= GROUPING_KEY_MAX_LENGTH) return { ok: true, key };
  return { ok: true, key: `sha256:${createHash("sha256").update(key).digest("hex")}` };
}
