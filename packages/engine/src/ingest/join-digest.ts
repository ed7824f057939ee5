import { newId, nextLocalTimeOfDay, resolveTimeZone, type WeekdayName } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  dropDigestItemsBeyond,
  findOpenDigest,
  insertDigestItemInEventOrder,
  openDigest,
  recordDigestCount,
  type EventRow,
  type RecipientRow,
  type RuleRow,
  type Transaction,
} from "@svc/store";
import { renderPool } from "../rendering/render-pool";
import type { StoredDigestPolicy } from "../rules/rule-input";

export interface DigestJoin {
  digestId: string;
  closesAt: Date;
  /** `send_after` reached with this event: the digest closes now. */
  full: boolean;
}

export type DigestJoinResult = { ok: true; join: DigestJoin } | { ok: false; detail: string };

const digestOpenKey = (ruleKey: string, recipientId: string, key: string) =>
  `${ruleKey}|${recipientId}|${key}`;

/**
 * Adds the event to the open digest of (rule, recipient, rendered key), opening one when there is
 * none (docs/digests.md). Runs under the recipient lock, so one group never gets two open digests;
 * items are kept in event order, whatever order the workers process them in.
 */
export async function joinDigest(
  tx: Transaction,
  deps: { config: SvcConfig; now: Date },
  input: {
    rule: RuleRow;
    event: Pick<EventRow, "id" | "name" | "created_at" | "data">;
    recipient: RecipientRow;
  },
): Promise<DigestJoinResult> {
  const { rule, event, recipient } = input;
  const policy = rule.digest as unknown as StoredDigestPolicy;
  const rendered = await renderPool(deps.config).renderGroupingKey(policy.key ?? null, {
    data: event.data as Record<string, unknown>,
    recipient: {
      external_id: recipient.external_id,
      locale: recipient.locale,
      timezone: recipient.timezone,
      region: recipient.region,
      attributes: recipient.attributes as Record<string, unknown>,
    },
    event: { id: event.id, name: event.name, created_at: event.created_at.toISOString() },
  });
  if (!rendered.ok) return { ok: false, detail: rendered.detail };

  const openKey = digestOpenKey(rule.key, recipient.id, rendered.key);
  const open = await findOpenDigest(tx, openKey);
  const digest =
    open ??
    (await openDigest(tx, {
      id: newId("digest", deps.now.getTime()),
      rule_key: rule.key,
      recipient_id: recipient.id,
      recipient_external_id: recipient.external_id,
      key: rendered.key,
      open_key: openKey,
      closes_at: closesAt(policy, recipient, deps),
      now: deps.now,
    }));

  await insertDigestItemInEventOrder(tx, digest.id, event);
  const count = digest.count + 1;
  // `max_items`: the most recent events are kept; older ones stay counted in `count`.
  if (count > policy.max_items) await dropDigestItemsBeyond(tx, digest.id, policy.max_items);
  const full = policy.send_after !== null && count >= policy.send_after;
  const updated = await recordDigestCount(tx, digest.id, count, deps.now, full);
  return { ok: true, join: { digestId: digest.id, closesAt: updated.closes_at, full } };
}

// End of the window, or the next `deliver_at` on an allowed day in the recipient's zone
// (docs/digests.md, "The digest policy").
function closesAt(
  policy: StoredDigestPolicy,
  recipient: RecipientRow,
  deps: { config: SvcConfig; now: Date },
): Date {
  if (policy.window !== null) return new Date(deps.now.getTime() + policy.window * 1000);
  const zone = resolveTimeZone(recipient.timezone, deps.config.policy.default_timezone);
  return nextLocalTimeOfDay(
    deps.now,
    policy.deliver_at!,
    zone,
    (policy.days ?? undefined) as WeekdayName[] | undefined,
  );
}
