import type { SvcConfig } from "@svc/config";
import type { RenderContext } from "@svc/core";
import {
  $transaction,
  cancelDigestInsteadOfSending,
  cancelOpenDigest,
  detachOpenDigest,
  findDigest,
  findDigestToClose,
  findMessage,
  findRule,
  findTemplate,
  markDigestSent,
  setDigestMessage,
  type DigestRow,
  type DigestWithItems,
  type RootDatabase,
  type RecipientRow,
  type RuleRow,
} from "@svc/store";
import { emitWebhookEvents } from "../outbox/emit";
import { ComposeReferenceError } from "../compose/compose-errors";
import { composeMessage } from "../compose/compose-message";
import type { ComposeRequest, ContentOverride } from "../compose/compose-types";
import { lockPerson } from "../shared/lock-person";
import type { StoredDigestPolicy } from "../rules/rule-input";
import { digestTemplateData } from "./digest-data";
import { renderPool } from "../rendering/render-pool";
import { aiSettingsOf, summarizeDigest } from "./summarize";

// Closing a digest (docs/digests.md, "Closing, exactly once"): one message through regular policy,
// exactly once. The state
// change is a compare-and-set on `open` inside the transaction that composes, under the person's
// lock, so retries and racing closers write one message (the dedup key `dig:<id>` guards too).

export interface CloseDigestDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  now: () => Date;
  logger?: { warn(message: string, meta?: Record<string, unknown>): void };
}

export interface PendingDelivery {
  messageId: string;
  generation: number;
  sendAt: Date;
}

export type CloseDigestResult =
  | { status: "sent"; messageId: string; messageStatus: string; delivery: PendingDelivery | null }
  | { status: "cancelled"; reason: string }
  | { status: "not_due"; closesAt: Date }
  /** `delivery`: a digest sent earlier whose message still waits queued (a retried job re-announces it). */
  | { status: "skipped"; reason: "not_found" | "not_open"; delivery: PendingDelivery | null };

const digestDedupKey = (digestId: string) => `dig:${digestId}`;

// Lock waits queue up behind busy recipients, as in ingest.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

export async function closeDigest(deps: CloseDigestDeps, digestId: string): Promise<CloseDigestResult> {
  const now = deps.now();
  const digest = await findDigest(deps.prisma, digestId);
  if (!digest) return { status: "skipped", reason: "not_found", delivery: null };
  if (digest.status !== "open")
    return { status: "skipped", reason: "not_open", delivery: await queuedMessage(deps.prisma, digest) };
  const rule = await findRule(deps.prisma, digest.rule_key);
  const policy = (rule?.digest ?? null) as StoredDigestPolicy | null;
  if (!isDue(digest, policy, now)) return { status: "not_due", closesAt: digest.closes_at };

  let prepared: { override: ContentOverride; count: number } | null = null;
  if (rule?.enabled && policy?.summarize) {
    // Detached first, so later events open a fresh digest and the AI sees the final group.
    const frozen = await freeze(deps, digest, now);
    if (!frozen) return closeDigest(deps, digestId);
    prepared = { override: await summarize(deps, rule, policy, frozen), count: frozen.digest.count };
  }

  return $transaction(
    deps.prisma,
    async (tx): Promise<CloseDigestResult> => {
      await lockPerson(tx, { id: digest.recipient_id, external_id: digest.recipient_external_id });
      const current = await findDigestToClose(tx, digestId);
      if (!current) return { status: "skipped", reason: "not_found", delivery: null };
      if (current.status !== "open") return { status: "skipped", reason: "not_open", delivery: null };
      const liveRule = await findRule(tx, current.rule_key);
      if (!liveRule || !liveRule.enabled) {
        const reason = liveRule ? "rule disabled" : "rule deleted";
        return (await cancelOpenDigest(tx, digestId, reason, now))
          ? { status: "cancelled", reason }
          : { status: "skipped", reason: "not_open", delivery: null };
      }
      if (!(await markDigestSent(tx, digestId, now)))
        return { status: "skipped", reason: "not_open", delivery: null };

      // A frozen digest cannot grow; should it have, its summary no longer fits the group.
      const override =
        prepared && prepared.count !== current.count
          ? { text: null, extra: { summary: "template", summary_fallback: "group changed" } }
          : (prepared?.override ?? null);
      const request = digestComposeRequest(current, current.recipient, liveRule, override);
      try {
        const { message } = await composeMessage(tx, { config: deps.config, now: () => now }, request);
        await setDigestMessage(tx, digestId, message.id);
        await emitWebhookEvents(tx, [
          {
            type: "digest.sent",
            occurredAt: now,
            subject: { kind: "digest", id: digestId },
            snapshot: { status: "sent", sent_at: now, message_id: message.id },
          },
        ]);
        const delivery =
          message.status === "queued"
            ? { messageId: message.id, generation: message.generation, sendAt: message.send_at }
            : null;
        return { status: "sent", messageId: message.id, messageStatus: message.status, delivery };
      } catch (error) {
        // The rule's category vanished: nothing can be composed, so the digest ends cancelled.
        if (!(error instanceof ComposeReferenceError) || error.reference !== "category") throw error;
        const reason = `misconfigured: ${error.message}`;
        await cancelDigestInsteadOfSending(tx, digestId, reason);
        return { status: "cancelled", reason };
      }
    },
    TRANSACTION_OPTIONS,
  );
}

/** Due at `closes_at`, or at once when `send_after` events are grouped (docs/digests.md). */
function isDue(digest: DigestRow, policy: StoredDigestPolicy | null, now: Date): boolean {
  if (digest.closes_at.getTime() <= now.getTime()) return true;
  return policy?.send_after != null && digest.count >= policy.send_after;
}

function digestComposeRequest(
  digest: DigestWithItems,
  recipient: RecipientRow,
  rule: RuleRow,
  override: ContentOverride | null,
): ComposeRequest {
  return {
    recipientId: recipient.id,
    template: rule.template,
    category: rule.category,
    channels: rule.channels,
    importance: rule.importance,
    data: digestTemplateData(digest, digest.items) as unknown as Record<string, unknown>,
    // Grouped events may come from several senders; the digest is the rule's own message.
    sender: "backend",
    agentKey: null,
    apiKeyId: null,
    // No single event: `expires_in` counts from the close (ComposeRequest: "or now").
    rule: {
      key: rule.key,
      delaySeconds: rule.delay_seconds,
      cooldownSeconds: rule.cooldown_seconds,
      expiresInSeconds: rule.expires_in_seconds,
    },
    event: null,
    digestId: digest.id,
    dedupKey: digestDedupKey(digest.id),
    expiresAt: null,
    contentOverride: override,
  };
}

interface FrozenDigest {
  digest: DigestWithItems;
  recipient: RecipientRow;
}

// Under the lock ingest joins by, `open_key` goes: no event joins this digest any more.
async function freeze(deps: CloseDigestDeps, digest: DigestRow, now: Date): Promise<FrozenDigest | null> {
  return $transaction(
    deps.prisma,
    async (tx) => {
      await lockPerson(tx, { id: digest.recipient_id, external_id: digest.recipient_external_id });
      if (!(await detachOpenDigest(tx, digest.id, now))) return null;
      const current = await findDigestToClose(tx, digest.id);
      if (!current) throw new Error(`digest ${digest.id} vanished under its lock`);
      const { recipient, ...rest } = current;
      return { digest: rest, recipient };
    },
    TRANSACTION_OPTIONS,
  );
}

async function summarize(
  deps: CloseDigestDeps,
  rule: RuleRow,
  policy: StoredDigestPolicy,
  frozen: FrozenDigest,
): Promise<ContentOverride> {
  const { digest, recipient } = frozen;
  const data = digestTemplateData(digest, digest.items);
  const template = await findTemplate(deps.prisma, rule.template);
  const context: RenderContext = {
    data: data as unknown as Record<string, unknown>,
    recipient: {
      external_id: recipient.external_id,
      locale: recipient.locale,
      timezone: recipient.timezone,
      region: recipient.region,
      attributes: (recipient.attributes ?? {}) as Record<string, unknown>,
    },
    event: null,
  };
  const { override, summary } = await summarizeDigest({
    settings: aiSettingsOf(deps.config),
    template,
    locale: recipient.locale,
    channel: rule.channels[0] ?? null,
    context,
    events: data.events,
    summaryFields: policy.summary_fields,
    renderer: renderPool(deps.config),
  });
  if (summary.source === "template")
    deps.logger?.warn("digest summary fell back to the template", {
      digest_id: digest.id,
      reason: summary.reason,
    });
  return override;
}

async function queuedMessage(prisma: RootDatabase, digest: DigestRow): Promise<PendingDelivery | null> {
  if (digest.message_id === null) return null;
  const message = await findMessage(prisma, digest.message_id);
  return message?.status === "queued"
    ? { messageId: message.id, generation: message.generation, sendAt: message.send_at }
    : null;
}
