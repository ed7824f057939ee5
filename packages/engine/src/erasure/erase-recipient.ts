import { AppError, sha256Hex, type Principal } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import { $transaction, lockRecipient, type PrismaClient, type TransactionClient } from "@svc/store";
import { assertMayWritePeople } from "../recipients/recipients";
import { removeErasedJobs, type ErasedWork } from "./erasure-jobs";

export interface EraseDeps {
  prisma: PrismaClient;
  config: Pick<SvcConfig, "compliance">;
  queues: Queues;
  logger: Logger;
  now: () => Date;
}

/** The keyword of the person's last text STOP/START, for the suppression row. */
async function lastKeyword(tx: TransactionClient, recipientId: string): Promise<string> {
  const entry = await tx.consentEntry.findFirst({
    where: { recipient_id: recipientId, source: "sms_keyword" },
    orderBy: [{ created_at: "desc" }, { id: "desc" }],
  });
  const keyword = (entry?.provenance as { keyword?: unknown } | undefined)?.keyword;
  return typeof keyword === "string" && keyword.length > 0 ? keyword : "stop";
}

// A text STOP outlives the person (DECISIONS "Consent ledger"): their text numbers stay muted as
// SHA-256 hashes, so a re-created profile with the number is muted until START.
async function keepSmsSuppressions(
  tx: TransactionClient,
  person: { id: string; muted_channels: string[] },
  smsChannels: string[],
  now: Date,
) {
  if (!person.muted_channels.some((channel) => smsChannels.includes(channel))) return;
  const numbers = await tx.address.findMany({
    where: { recipient_id: person.id, channel: { in: smsChannels } },
    select: { value: true },
  });
  if (numbers.length === 0) return;
  const keyword = await lastKeyword(tx, person.id);
  await tx.smsSuppression.createMany({
    data: numbers.map((n) => ({ phone_sha256: sha256Hex(n.value), keyword, created_at: now })),
    skipDuplicates: true,
  });
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
      const person = await tx.recipient.findUnique({ where: { external_id: externalId } });
      if (person) await lockRecipient(tx, person.id);
      const byPerson = person
        ? { OR: [{ recipient_id: person.id }, { recipient_external_id: externalId }] }
        : { recipient_external_id: externalId };
      // Accepted events not yet ingested have no recipient id, only the external id.
      const events = await tx.event.findMany({
        where: byPerson,
        select: { id: true, outcomes: { select: { rule_key: true } } },
      });
      if (!person && events.length === 0) throw new AppError("not_found", `no recipient '${externalId}'`);
      const messages = await tx.message.findMany({ where: byPerson, select: { id: true, generation: true } });
      const digests = await tx.digest.findMany({ where: byPerson, select: { id: true } });
      const messageIds = messages.map((m) => m.id);
      const callbacks = await tx.callbackDelivery.findMany({
        where: { subject_id: { in: messageIds } },
        select: { id: true },
      });
      const rules = await tx.rule.findMany({ select: { key: true } });

      const smsChannels = deps.config.compliance.sms_channels;
      if (person) await keepSmsSuppressions(tx, person, smsChannels, deps.now());
      await tx.reviewLink.deleteMany({
        where: { OR: [{ message_id: { in: messageIds } }, { reviewer: externalId }] },
      });
      await tx.callbackDelivery.deleteMany({ where: { id: { in: callbacks.map((c) => c.id) } } });
      await tx.message.deleteMany({ where: { id: { in: messageIds } } }); // cascades: attempts, engagements
      await tx.digest.deleteMany({ where: { id: { in: digests.map((d) => d.id) } } }); // cascades: items
      await tx.event.deleteMany({ where: { id: { in: events.map((e) => e.id) } } }); // cascades: outcomes
      if (person) {
        await eraseReplies(tx, person.id, smsChannels);
        // cascades: addresses, preference token, ledger, consents, fatigue
        await tx.recipient.delete({ where: { id: person.id } });
      }
      return {
        eventIds: events.map((e) => e.id),
        ruleKeys: [
          ...new Set([
            ...rules.map((r) => r.key),
            ...events.flatMap((e) => e.outcomes.map((o) => o.rule_key)),
          ]),
        ],
        messages,
        digestIds: digests.map((d) => d.id),
        callbackIds: callbacks.map((c) => c.id),
      };
    },
    { timeout: 60_000 },
  );
  try {
    await removeErasedJobs(deps.queues, work);
  } catch (error) {
    // The rows are gone, so a job left behind finds nothing and does nothing.
    deps.logger.warn("erasure: could not remove queued jobs", { error });
  }
}

/** Inbound text replies from the person's numbers, unless someone else still has the number. */
async function eraseReplies(
  tx: TransactionClient,
  recipientId: string,
  smsChannels: string[],
): Promise<void> {
  const texts = await tx.address.findMany({
    where: { recipient_id: recipientId, channel: { in: smsChannels } },
    select: { value: true },
  });
  const numbers = [...new Set(texts.map((t) => t.value))];
  if (numbers.length === 0) return;
  const shared = await tx.address.findMany({
    where: { value: { in: numbers }, recipient_id: { not: recipientId } },
    select: { value: true },
  });
  const own = numbers.filter((n) => !shared.some((s) => s.value === n));
  if (own.length > 0) await tx.inboundReply.deleteMany({ where: { from: { in: own } } });
}
