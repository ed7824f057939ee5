import {
  AppError,
  isWebhookEventFilter,
  newId,
  newLinkNonce,
  webhookSigningSecret,
  type ValidationIssue,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  findWebhookEndpointPage,
  insertWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type RootDatabase,
  type WebhookEndpointPatch,
  type WebhookEndpointRow,
} from "@svc/store";
import { requireSecretKey } from "../links/link-tokens";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { validationError } from "../shared/validation";
import { webhookUrlProblem } from "./webhook-url";

// Webhook endpoints (docs/webhooks.md "Endpoints"): `POST/GET/PATCH/DELETE /v1/webhooks…`, admin
// keys only (the OpenAPI document says so). The secret is svc's: generated here, shown only in
// the answer that creates or rotates it.

/** After a rotation the old secret keeps signing beside the new one this long. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookEndpointDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "webhooks" | "secrets">;
  now: () => Date;
  /** Resolves a host to its addresses (tests answer for names that do not exist). */
  resolve?: (host: string) => Promise<string[]>;
}

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  /** Why svc disabled it: `gone` (a 410) or `failing` (webhooks.disable_after); else null. */
  disabled_reason: string | null;
  /** Since when every try failed; null while it answers. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  enabled?: boolean;
}

export function serializeWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** `whsec_` and 32 random bytes (base64url). */
/** The secret key the signing secrets are derived from (SVC_SECRET_KEY). */
function secretKeyOf(config: Pick<SvcConfig, "secrets">): string {
  return requireSecretKey(config);
}

async function checkInput(deps: WebhookEndpointDeps, input: Partial<WebhookEndpointInput>): Promise<void> {
  const issues: ValidationIssue[] = [];
  if (input.url !== undefined) {
    const problem = await webhookUrlProblem(input.url, {
      allowPrivate: deps.config.webhooks.allow_private_urls,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
    if (problem) issues.push({ loc: ["body", "url"], msg: problem, type: "value_error" });
  }
  input.events?.forEach((filter, index) => {
    if (!isWebhookEventFilter(filter))
      issues.push({
        loc: ["body", "events", index],
        msg: `unknown event type '${filter}' (an event type, a family such as 'message.*', or '*')`,
        type: "value_error",
      });
  });
  if (issues.length > 0) throw validationError(issues);
}

/** 201: the endpoint with its `secret` (the only time it is shown, but for rotation). */
export async function createWebhookEndpoint(
  deps: WebhookEndpointDeps,
  input: WebhookEndpointInput,
): Promise<WebhookEndpointView & { secret: string }> {
  await checkInput(deps, input);
  const now = deps.now();
  const id = newId("webhook", now.getTime());
  const secretSalt = newLinkNonce();
  const secret = webhookSigningSecret(secretKeyOf(deps.config), id, secretSalt);
  const row = await insertWebhookEndpoint(deps.prisma, {
    id,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    enabled: input.enabled ?? true,
    secretSalt,
    now,
  });
  return { ...serializeWebhookEndpoint(row), secret };
}

export async function listWebhookEndpoints(
  deps: Pick<WebhookEndpointDeps, "prisma">,
  query: PageRequest,
): Promise<Page<WebhookEndpointView>> {
  const window = pageWindow(query);
  const rows = await findWebhookEndpointPage(deps.prisma, window);
  return toPage(rows, window, (row) => row.id, serializeWebhookEndpoint);
}

export async function loadWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, "prisma">,
  id: string,
): Promise<WebhookEndpointRow> {
  const row = await findWebhookEndpoint(deps.prisma, id);
  if (!row) throw new AppError("not_found", `no webhook endpoint '${id}'`);
  return row;
}

export async function getWebhookEndpoint(
  deps: Pick<WebhookEndpointDeps, "prisma">,
  id: string,
): Promise<WebhookEndpointView> {
  return serializeWebhookEndpoint(await loadWebhookEndpoint(deps, id));
}

/** Changes `url`, `events`, `description`, `enabled`; enabling one svc disabled starts it afresh. */
export async function updateWebhookEndpointById(
  deps: WebhookEndpointDeps,
  id: string,
  patch: Partial<WebhookEndpointInput>,
): Promise<WebhookEndpointView> {
  await checkInput(deps, patch);
  const change: WebhookEndpointPatch = {};
  if (patch.url !== undefined) change.url = patch.url;
  if (patch.events !== undefined) change.events = [...new Set(patch.events)];
  if (patch.description !== undefined) change.description = patch.description;
  if (patch.enabled !== undefined) change.enabled = patch.enabled;
  const row = await updateWebhookEndpoint(deps.prisma, id, change, deps.now());
  if (!row) throw new AppError("not_found", `no webhook endpoint '${id}'`);
  return serializeWebhookEndpoint(row);
}

/** Deletes it with its deliveries: nothing more is sent to it. */
export async function deleteWebhookEndpointById(
  deps: Pick<WebhookEndpointDeps, "prisma">,
  id: string,
): Promise<void> {
  if (!(await deleteWebhookEndpoint(deps.prisma, id)))
    throw new AppError("not_found", `no webhook endpoint '${id}'`);
}

/** A new secret; the old one signs beside it for WEBHOOK_SECRET_OVERLAP_MS. */
export async function rotateWebhookEndpointSecret(
  deps: Pick<WebhookEndpointDeps, "prisma" | "now" | "config">,
  id: string,
): Promise<{ secret: string; previous_secret_expires_at: string }> {
  const now = deps.now();
  const secretSalt = newLinkNonce();
  const secret = webhookSigningSecret(secretKeyOf(deps.config), id, secretSalt);
  const until = new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_MS);
  const row = await rotateWebhookSecret(deps.prisma, id, secretSalt, until, now);
  if (!row) throw new AppError("not_found", `no webhook endpoint '${id}'`);
  return { secret, previous_secret_expires_at: until.toISOString() };
}

/** The secrets that sign a POST made at `now`, derived from their salts: the current one first. */
export function signingSecrets(
  row: WebhookEndpointRow,
  now: Date,
  config: Pick<SvcConfig, "secrets">,
): string[] {
  const key = secretKeyOf(config);
  const current = webhookSigningSecret(key, row.id, row.secret_salt);
  return row.previous_secret_salt !== null &&
    row.previous_secret_until !== null &&
    row.previous_secret_until.getTime() > now.getTime()
    ? [current, webhookSigningSecret(key, row.id, row.previous_secret_salt)]
    : [current];
}
