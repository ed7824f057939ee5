import { AppError, type ValidationIssue } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import { $transaction, findCategory, getRecipientById, type RootDatabase } from "@svc/store";
import { resolveLinkToken, type ResolvedLinkToken } from "../links/resolve-link-token";
import { changePreferences, type PreferencesInput } from "../recipients/preferences";
import { validationError } from "../shared/validation";
import { lockPerson } from "../shared/lock-person";
import { loadOwnPreferences, type OwnPreferencesView } from "./own-preferences";

export interface SelfServiceDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "channels">;
  now: () => Date;
}

/** Who acted, for the ledger: `hosted_page` or `preference_api`, with the request's address and agent. */
export interface SelfServiceRequest {
  method: "hosted_page" | "preference_api";
  ip: string | null;
  user_agent: string | null;
}

const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** GET /v1/preferences/{token} and the hosted page. */
export async function getOwnPreferences(deps: SelfServiceDeps, token: string): Promise<OwnPreferencesView> {
  const link = await resolveLinkToken(deps.prisma, token);
  return loadOwnPreferences(deps.prisma, deps.config, link);
}

// A person may leave only categories that allow it, and mute only configured channels (or keep a
// mute that outlived its channel's configuration).
async function checkInput(
  deps: SelfServiceDeps,
  view: OwnPreferencesView,
  input: PreferencesInput,
): Promise<void> {
  const issues: ValidationIssue[] = [];
  const optional = new Set(view.categories.map((c) => c.key));
  input.unsubscribed_categories?.forEach((key, i) => {
    if (!optional.has(key) && !view.unsubscribed_categories.includes(key)) {
      issues.push({
        loc: ["body", "unsubscribed_categories", i],
        msg: `category '${key}' cannot be left`,
        type: "value_error",
      });
    }
  });
  input.muted_channels?.forEach((name, i) => {
    if (!Object.hasOwn(deps.config.channels, name) && !view.muted_channels.includes(name)) {
      issues.push({ loc: ["body", "muted_channels", i], msg: `no channel '${name}'`, type: "value_error" });
    }
  });
  for (const field of ["start", "end"] as const) {
    const value = input.quiet_hours?.[field];
    if (value !== undefined && !TIME_OF_DAY.test(value)) {
      issues.push({
        loc: ["body", "quiet_hours", field],
        msg: "expected a time of day HH:MM",
        type: "format",
      });
    }
  }
  if (issues.length > 0) throw validationError(issues);
}

/**
 * PUT /v1/preferences/{token} and the hosted page's form: given fields replace the stored ones,
 * written through `changePreferences` under the person's lock (ledger source `self_service`).
 */
export async function changeOwnPreferences(
  deps: SelfServiceDeps,
  token: string,
  input: PreferencesInput,
  request: SelfServiceRequest,
): Promise<OwnPreferencesView> {
  return $transaction(deps.prisma, async (tx) => {
    const link = await resolveLinkToken(tx, token);
    const person = await getRecipientById(tx, link.recipientId);
    await lockPerson(tx, person);
    const before = await loadOwnPreferences(tx, deps.config, link);
    await checkInput(deps, before, input);
    await changePreferences(
      tx,
      person.id,
      input,
      { source: "self_service", provenance: provenanceOf(request, link) },
      deps.now(),
    );
    return loadOwnPreferences(tx, deps.config, link);
  });
}

function provenanceOf(request: SelfServiceRequest, link: ResolvedLinkToken): Record<string, unknown> {
  const base = { method: request.method, ip: request.ip, user_agent: request.user_agent };
  return link.kind === "unsubscribe" ? { ...base, message_id: link.messageId } : base;
}

/**
 * RFC 8058 one-click: an unsubscribe token leaves its message's category (ledger `one_click`).
 * Leaving a category one already left changes nothing and writes nothing, and still succeeds.
 */
export async function oneClickUnsubscribe(
  deps: Pick<SelfServiceDeps, "prisma" | "now">,
  token: string,
  request: { ip: string | null; user_agent: string | null },
): Promise<{ category: string; changed: boolean; locale: string | null }> {
  return $transaction(deps.prisma, async (tx) => {
    const link = await resolveLinkToken(tx, token);
    if (link.kind !== "unsubscribe") {
      throw new AppError(
        "not_found",
        "This is a preferences link, not an unsubscribe link: open it to choose what to leave",
      );
    }
    const category = await findCategory(tx, link.category);
    if (category && !category.allow_unsubscribe) {
      throw new AppError(
        "unprocessable",
        `Messages of category '${link.category}' cannot be unsubscribed from`,
      );
    }
    const person = await getRecipientById(tx, link.recipientId);
    await lockPerson(tx, person);
    const current = await getRecipientById(tx, person.id);
    const result = await changePreferences(
      tx,
      person.id,
      { unsubscribed_categories: [...current.unsubscribed_categories, link.category] },
      {
        source: "one_click",
        provenance: {
          method: "one_click",
          ip: request.ip,
          user_agent: request.user_agent,
          message_id: link.messageId,
        },
      },
      deps.now(),
    );
    return { category: link.category, changed: result.changed, locale: person.locale };
  });
}
