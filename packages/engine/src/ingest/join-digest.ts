import { newId, nextLocalTimeOfDay, renderGroupingKey, resolveTimeZone, type WeekdayName } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import { Prisma, type EventRow, type RecipientRow, type RuleRow, type TransactionClient } from "@svc/store";
import type { StoredDigestPolicy } from "../rules/rule-input";

export interface DigestJoin {
  digestId: string;
  closesAt: Date;
  /** `send_after` reached with this event: the digest closes now. */
  full: boolean;
}

export type DigestJoinResult = { ok: true; join: DigestJoin } | { ok: false; detail: string };

export const digestOpenKey = (ruleKey: string, recipientId: string, key: string) =>
  `${ruleKey}|${recipientId}|${key}`;

/**
 * Adds the event to the open digest of (rule, recipient, rendered key), opening one when there is
 * none (SPEC 1.7). Runs under the recipient lock, so one group never gets two open digests; items
 * are kept in event order, whatever order the workers process them in.
 */
export async function joinDigest(
  tx: TransactionClient,
  deps: { config: SvcConfig; now: Date },
  input: {
    rule: RuleRow;
    event: Pick<EventRow, "id" | "name" | "created_at" | "data">;
    recipient: RecipientRow;
  },
): Promise<DigestJoinResult> {
  const { rule, event, recipient } = input;
  const policy = rule.digest as unknown as StoredDigestPolicy;
  const rendered = renderGroupingKey(policy.key, {
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
  const open = await tx.digest.findUnique({ where: { open_key: openKey } });
  const digest =
    open ??
    (await tx.digest.create({
      data: {
        id: newId("digest", deps.now.getTime()),
        rule_key: rule.key,
        recipient_id: recipient.id,
        recipient_external_id: recipient.external_id,
        key: rendered.key,
        open_key: openKey,
        status: "open",
        closes_at: closesAt(policy, recipient, deps),
        count: 0,
        created_at: deps.now,
        updated_at: deps.now,
      },
    }));

  await insertInEventOrder(tx, digest.id, event);
  const count = digest.count + 1;
  if (count > policy.max_items) await dropOldestBeyond(tx, digest.id, policy.max_items);
  const full = policy.send_after !== null && count >= policy.send_after;
  const updated = await tx.digest.update({
    where: { id: digest.id },
    data: { count, updated_at: deps.now, ...(full ? { closes_at: deps.now } : {}) },
  });
  return { ok: true, join: { digestId: digest.id, closesAt: updated.closes_at, full } };
}

// End of the window, or the next `deliver_at` on an allowed day in the recipient's zone (SPEC 1.7.7).
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

// Positions follow (event time, event id). The usual case appends; a late older event shifts the
// newer items up by one and takes the place of the first of them.
async function insertInEventOrder(
  tx: TransactionClient,
  digestId: string,
  event: Pick<EventRow, "id" | "created_at" | "data">,
): Promise<void> {
  const firstNewer = await tx.digestItem.findFirst({
    where: {
      digest_id: digestId,
      OR: [
        { event_at: { gt: event.created_at } },
        { event_at: event.created_at, event_id: { gt: event.id } },
      ],
    },
    orderBy: { position: "asc" },
  });
  let position: number;
  if (firstNewer) {
    await tx.digestItem.updateMany({
      where: { digest_id: digestId, position: { gte: firstNewer.position } },
      data: { position: { increment: 1 } },
    });
    position = firstNewer.position;
  } else {
    const last = await tx.digestItem.findFirst({
      where: { digest_id: digestId },
      orderBy: { position: "desc" },
    });
    position = (last?.position ?? -1) + 1;
  }
  await tx.digestItem.create({
    data: {
      digest_id: digestId,
      event_id: event.id,
      position,
      data: (event.data ?? {}) as Prisma.InputJsonValue,
      event_at: event.created_at,
    },
  });
}

// SPEC 2.7 `max_items`: the most recent events are kept; older ones stay counted in `count`.
async function dropOldestBeyond(tx: TransactionClient, digestId: string, maxItems: number): Promise<void> {
  const kept = await tx.digestItem.findMany({
    where: { digest_id: digestId },
    orderBy: { position: "desc" },
    skip: maxItems,
    select: { event_id: true },
  });
  if (kept.length === 0) return;
  await tx.digestItem.deleteMany({
    where: { digest_id: digestId, event_id: { in: kept.map((k) => k.event_id) } },
  });
}
