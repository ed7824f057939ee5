import { AppError, sha256Hex, type Principal } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import {
  $transaction,
  deleteCallbackDeliveries,
  deleteDigests,
  deleteEvents,
  deleteInboundRepliesFrom,
  deleteMessages,
  deleteRecipient,
  deleteReviewLinksOf,
  deleteWebhookDeliveriesOf,
  findCallbackIdsOfMessages,
  findDigestIdsOfPerson,
  findEventsOfPerson,
  findLastSmsKeywordEntry,
  findMessagesOfPerson,
  findNumbersOf,
  findNumbersSharedWithOthers,
  findRecipientByExternalId,
  insertSmsSuppressions,
  listRuleKeys,
  lockRecipient,
  type ErasedPerson,
  type RootDatabase,
  type Transaction,
} from "@svc/store";
import { INBOX_TOPICS, inboxChangeEntry } from "../shared/inbox-changes";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { webhookEntries } from "../outbox/emit";
import { assertMayWritePeople } from "../shared/may-write-people";
import { removeErasedJobs, type ErasedWork } from "./erasure-jobs";

export interface EraseDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "compliance">;
  queues: Queues;
  logger: Logger;
  now: () => Date;
}

/** The keyword of the person's last text STOP/START, for the suppression row. */
async function lastKeyword(tx: Transaction, recipientId: string): Promise<string> {
  const entry = await findLastSmsKeywordEntry(tx, recipientId);
  const keyword = (entry?.provenance as { keyword?: unknown } | undefined)?.keyword;
  return typeof keyword === "string" && keyword.length > 0 ? keyword : "stop";
}

// A text STOP outlives the person (docs/erasure.md "What is kept"): their text numbers stay muted
// as SHA-256 hashes of their E.164 form, so a re-created profile with the number is muted until
// START (docs/texting.md "STOP and START").
async function keepSmsSuppressions(
  tx: Transaction,
  person: { id: string; muted_channels: string[] },
  smsChannels: string[],
  now: Date,
) {
  if (!person.muted_channels.some((channel) => smsChannels.includes(channel))) return;
  const numbers = await findNumbersOf(tx, person.id, smsChannels);
  if (numbers.length === 0) return;
  const keyword = await lastKeyword(tx, person.id);
  await insertSmsSuppressions(
    tx,
    numbers.map((n) => sha256Hex(n)),
    keyword,
    now,
  );
}

/**
 * DELETE /v1/recipients/{external_id}: in one transaction under the person's lock, deletes every
 * row keyed to them (docs/erasure.md), then removes their queued jobs after commit.
 */
export async function eraseRecipient(
  deps: EraseDeps,
  principal: Principal,
  externalId: string,
): Promise<void> {
  assertMayWritePeople(principal);
  const work = await $transaction(
    deps.prisma,
    async (tx): Promise<ErasedWork> => {
      await lockRecipient(tx, externalId);
      const person = await findRecipientByExternalId(tx, externalId);
      if (person) await lockRecipient(tx, person.id);
      // Accepted events not yet ingested have no recipient id, only the external id.
      const erased: ErasedPerson = { recipientId: person?.id ?? null, externalId };
      const events = await findEventsOfPerson(tx, erased);
      if (!person && events.length === 0) throw new AppError("not_found", `no recipient '${externalId}'`);
      const messages = await findMessagesOfPerson(tx, erased);
      const digestIds = await findDigestIdsOfPerson(tx, erased);
      const messageIds = messages.map((m) => m.id);
      const callbackIds = await findCallbackIdsOfMessages(tx, messageIds);
      const ruleKeys = await listRuleKeys(tx);

      const smsChannels = deps.config.compliance.sms_channels;
      if (person) await keepSmsSuppressions(tx, person, smsChannels, deps.now());
      await deleteReviewLinksOf(tx, messageIds, externalId);
      await deleteCallbackDeliveries(tx, callbackIds);
      await deleteMessages(tx, messageIds);
      await deleteDigests(tx, digestIds);
      await deleteEvents(
        tx,
        events.map((e) => e.id),
      );
      if (person) {
        await eraseReplies(tx, person.id, smsChannels);
        await deleteRecipient(tx, person.id);
        // Webhook deliveries about them, sent or not, for every endpoint (docs/webhooks.md "Personal
        // data"): after the person's row, whose delete waits for a fan-out writing about them, so
        // this statement sees what that fan-out committed.
        await deleteWebhookDeliveriesOf(tx, person.id);
        // Their inbox items went with their messages; their open inbox streams are told to close,
        // and backends hear `recipient.erased` (its data frozen: the person is gone), in one insert.
        const now = deps.now();
        await recordOutbox(tx, [
          inboxChangeEntry(person.id, INBOX_TOPICS.revoked, null),
          ...webhookEntries([
            {
              type: "recipient.erased",
              occurredAt: now,
              subject: { kind: "recipient", id: person.id },
              snapshot: { external_id: person.external_id, source: "api", changes: {}, created_at: now },
            },
          ]),
        ]);
      }
      return {
        eventIds: events.map((e) => e.id),
        ruleKeys: [...new Set([...ruleKeys, ...events.flatMap((e) => e.ruleKeys)])],
        messages,
        digestIds,
        callbackIds,
      };
    },
    { timeout: 60_000 },
  );
  kickOutbox(deps.queues);
  try {
    await removeErasedJobs(deps.queues, work);
  } catch (error) {
    // The rows are gone, so a job left behind finds nothing and does nothing.
    deps.logger.warn("erasure: could not remove queued jobs", { error });
  }
}

/** Inbound text replies from the person's numbers, unless someone else still has the number. */
async function eraseReplies(tx: Transaction, recipientId: string, smsChannels: string[]): Promise<void> {
  // Replies are stored by their E.164 sender (docs/texting.md "Numbers").
  const numbers = await findNumbersOf(tx, recipientId, smsChannels);
  if (numbers.length === 0) return;
  const shared = await findNumbersSharedWithOthers(tx, numbers, recipientId);
  const own = numbers.filter((n) => !shared.includes(n));
  if (own.length > 0) await deleteInboundRepliesFrom(tx, own);
}
