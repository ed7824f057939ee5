import { setTimeout as sleep } from "node:timers/promises";
import type { SvcConfig } from "@svc/config";
import { BROADCAST_CANCELLED } from "@svc/core";
import { sharedThrottle, type Queues, type SharedThrottle } from "@svc/queue";
import {
  $transaction,
  changeBroadcastStatus,
  completeBroadcastIfDone,
  findBroadcast,
  findBroadcastChunk,
  findBroadcastStatus,
  findCategories,
  findMembersToSend,
  findTemplates,
  lockRecipients,
  saveChunkProgress,
  type BroadcastRow,
  type CategoryRow,
  type MemberToSend,
  type MessageRow,
  type RootDatabase,
  type TemplateRow,
} from "@svc/store";
import { broadcastCompletedPerRow } from "../outbox/emit";
import { ComposeReferenceError } from "../compose/compose-errors";
import { cancelBroadcastMessages } from "./cancel-broadcast-messages";
import { recordFinalMessage, recordFinalRows } from "../metrics/record-metrics";
import { composeMessagesOfPeople } from "../compose/compose-batch";
import type { ComposeRequest } from "../compose/compose-types";
import { deliveryJobsFor } from "../delivery/delivery-jobs";
import { handOffJobs, type DeliverHere } from "../shared/hand-off";

// One chunk job (docs/broadcasts.md "How it runs"): members in batches, each person's message
// decided through the full policy under their lock (the same decision as direct sends, composed for
// a group at once), deliveries enqueued, the resume point saved. Between batches it looks at the status, so a
// pause or a cancel stops it within a batch; the dedup key `brd:<broadcast>:<recipient>` makes a
// retried or resumed batch find the messages it already wrote instead of sending twice.

export interface ChunkDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  queues: Pick<Queues, "enqueue" | "enqueueBulk" | "redis" | "prefix">;
  now: () => Date;
  /**
   * In a worker that delivers inline (shared/hand-off.ts): due deliveries go to it, and a chunk
   * composes its next batch only when it has room (delivery, not composing, bounds a broadcast).
   */
  deliverHere?: DeliverHere | undefined;
}

/**
 * Members per batch: one status check, one progress write and one enqueue each. A batch takes a
 * fraction of a second, so a pause or cancel is seen within one (docs/broadcasts.md "How it runs").
 */
const BATCH = 100;
/** People composed in one transaction (a few statements for all), and such groups side by side. */
const GROUP = 50;
const PARALLEL = 2;
/** Longest sleep while waiting for a token, so a pause is still seen within a second. */
const MAX_TOKEN_WAIT_MS = 200;
// A person's lock may be busy with their own events; wait as ingest does.
const COMPOSE_TRANSACTION = { timeout: 30_000, maxWait: 10_000 };

/** The broadcast's template and category as the chunk job read them. */
type References = { templates: TemplateRow[]; categories: CategoryRow[] };

export type ChunkResult = "gone" | "stale" | "stopped" | "done" | "failed";

/** The template or category went away: nothing can be composed, the broadcast fails. */
class BroadcastMisconfigured extends Error {}

export async function sendBroadcastChunk(
  deps: ChunkDeps,
  { broadcastId, run, position }: { broadcastId: string; run: number; position: number },
): Promise<{ result: ChunkResult; sent?: number }> {
  const broadcast = await findBroadcast(deps.prisma, broadcastId);
  const chunk = await findBroadcastChunk(deps.prisma, broadcastId, position);
  if (!broadcast || !chunk) return { result: "gone" };
  // A job of a paused run that only now got a worker: the resumed run has its own for this chunk.
  if (broadcast.run !== run) return { result: "stale" };
  if (!(await stillRunning(deps, broadcastId))) return { result: "stopped" };
  const throttle = broadcast.rate_per_second ? throttleOf(deps, broadcast) : null;
  // Its template and category, read once per chunk job rather than once per group; one gone
  // fails the broadcast at its first group, as before.
  const references: References = {
    templates: await findTemplates(deps.prisma, [broadcast.template]),
    categories: await findCategories(deps.prisma, [broadcast.category]),
  };
  let next = chunk.next_seq;
  let skipped = chunk.skipped;
  let composed = 0;
  try {
    while (next <= chunk.last_seq) {
      await deps.deliverHere?.room();
      if (!(await stillRunning(deps, broadcastId))) return { result: "stopped", sent: composed };
      let want = Math.min(BATCH, chunk.last_seq - next + 1);
      if (throttle) {
        const grant = await throttle.take(want);
        if (grant.granted === 0) {
          await sleep(Math.min(Math.max(grant.waitMs, 1), MAX_TOKEN_WAIT_MS));
          continue;
        }
        want = grant.granted;
      }
      const members = await findMembersToSend(deps.prisma, broadcastId, {
        fromSeq: next,
        toSeq: chunk.last_seq,
        limit: want,
      });
      const batch = await composeBatch(deps, broadcast, members, references);
      skipped += batch.skipped;
      composed += batch.messages.length;
      next =
        batch.nextSeq ?? (members.length > 0 ? members[members.length - 1]!.seq + 1 : chunk.last_seq + 1);
      // Looked at again before the deliveries go out: messages composed after a cancel committed
      // are taken back here and never handed to a worker; a pause lets them go (they exist).
      const running = await stillRunning(deps, broadcastId);
      if (running || (await findBroadcastStatus(deps.prisma, broadcastId)) !== "cancelled")
        await enqueueDeliveries(deps, batch.messages);
      await saveChunkProgress(deps.prisma, broadcastId, position, {
        nextSeq: next,
        skipped,
        done: next > chunk.last_seq,
      });
      if (!running) return { result: "stopped", sent: composed };
    }
  } catch (error) {
    if (!(error instanceof BroadcastMisconfigured)) throw error;
    await failBroadcast(deps, broadcastId, `misconfigured: ${error.message}`);
    return { result: "failed", sent: composed };
  }
  await saveChunkProgress(deps.prisma, broadcastId, position, { nextSeq: next, skipped, done: true });
  const completedAt = deps.now();
  await completeBroadcastIfDone(deps.prisma, broadcastId, completedAt, broadcastCompletedPerRow(completedAt));
  // A cancel committed while the last batch was composed: its queued messages go too.
  await stillRunning(deps, broadcastId);
  return { result: "done", sent: composed };
}

/** False once paused, cancelled or ended; a cancelled broadcast's queued messages are cancelled here. */
async function stillRunning(deps: ChunkDeps, broadcastId: string): Promise<boolean> {
  const status = await findBroadcastStatus(deps.prisma, broadcastId);
  if (status === "cancelled")
    recordFinalMessage(
      "cancelled",
      BROADCAST_CANCELLED,
      await cancelBroadcastMessages(deps, broadcastId, deps.now()),
    );
  return status === "running";
}

/** `running` or `paused` → `failed`, keeping the reason. */
export async function failBroadcast(deps: ChunkDeps, broadcastId: string, reason: string): Promise<void> {
  for (const from of ["running", "paused", "scheduled"] as const) {
    const changed = await changeBroadcastStatus(
      deps.prisma,
      broadcastId,
      { from, to: "failed", statusReason: reason, completedAt: deps.now() },
      deps.now(),
    );
    if (changed) return;
  }
}

function throttleOf(deps: ChunkDeps, broadcast: BroadcastRow): SharedThrottle {
  // The producers' Redis connection: the bucket lives beside the jobs, shared by every worker.
  return sharedThrottle(
    deps.queues.redis,
    `${deps.queues.prefix}:broadcast-rate:${broadcast.id}`,
    broadcast.rate_per_second!,
  );
}

/**
 * Composes the batch in groups of people, each group in one transaction (one transaction per
 * person costs more than the composing itself), the groups side by side. Looks at the status
 * before each round, so a pause is seen within one round. `nextSeq` is where it stopped when it
 * stopped early, else null.
 */
async function composeBatch(
  deps: ChunkDeps,
  broadcast: BroadcastRow,
  members: MemberToSend[],
  references: References,
): Promise<{ messages: MessageRow[]; skipped: number; nextSeq: number | null }> {
  const messages: MessageRow[] = [];
  let skipped = 0;
  const round = GROUP * PARALLEL;
  for (let i = 0; i < members.length; i += round) {
    if (i > 0 && (await findBroadcastStatus(deps.prisma, broadcast.id)) !== "running")
      return { messages, skipped, nextSeq: members[i]!.seq };
    const slice = members.slice(i, i + round);
    const groups = Array.from({ length: Math.ceil(slice.length / GROUP) }, (_, g) =>
      slice.slice(g * GROUP, (g + 1) * GROUP),
    );
    for (const composed of await Promise.all(
      groups.map((group) => composeGroup(deps, broadcast, group, references)),
    )) {
      messages.push(...composed.messages);
      skipped += composed.skipped;
    }
  }
  return { messages, skipped, nextSeq: null };
}

/**
 * Each person's message (the one already written, on a retry); ids nobody has are skipped. The
 * group is composed as direct-send batches are (compose-batch.ts): every lock in one statement per
 * kind, external ids then internal ids as ingest takes them (so the two never wait on each other
 * in a circle), the rows read and the messages written for the whole group at once.
 */
async function composeGroup(
  deps: ChunkDeps,
  broadcast: BroadcastRow,
  group: MemberToSend[],
  references: References,
): Promise<{ messages: MessageRow[]; skipped: number }> {
  const known = group.filter((m): m is MemberToSend & { recipient_id: string } => m.recipient_id !== null);
  // Messages this group wrote (not found from an earlier try): the ones composition made final
  // (suppressed by the policy) are counted once committed.
  const fresh: MessageRow[] = [];
  const messages = await $transaction(
    deps.prisma,
    async (tx) => {
      fresh.length = 0;
      await lockRecipients(
        tx,
        known.map((m) => m.external_id),
      );
      await lockRecipients(
        tx,
        known.map((m) => m.recipient_id),
      );
      const requests = known.map((m) => composeRequestOf(broadcast, m.recipient_id));
      const composed: MessageRow[] = [];
      for (const outcome of await composeMessagesOfPeople(
        tx,
        { config: deps.config, now: deps.now },
        requests,
        references,
      )) {
        if (outcome.ok) {
          composed.push(outcome.result.message);
          if (!outcome.result.duplicate) fresh.push(outcome.result.message);
          continue;
        }
        // Erased since the batch was read: nothing was written for them, the others go on.
        const error = outcome.error;
        if (error instanceof ComposeReferenceError && error.reference === "recipient") continue;
        // The template or category went away: nothing can be composed, the broadcast fails.
        if (error instanceof ComposeReferenceError) throw new BroadcastMisconfigured(error.message);
        throw error;
      }
      return composed;
    },
    COMPOSE_TRANSACTION,
  );
  recordFinalRows(fresh);
  return { messages, skipped: group.length - messages.length };
}

export const broadcastDedupKey = (broadcastId: string, recipientId: string) =>
  `brd:${broadcastId}:${recipientId}`;

function composeRequestOf(broadcast: BroadcastRow, recipientId: string): ComposeRequest {
  return {
    recipientId,
    template: broadcast.template,
    category: broadcast.category,
    channels: broadcast.channels,
    importance: broadcast.importance,
    data: (broadcast.data ?? {}) as Record<string, unknown>,
    sender: "backend",
    agentKey: null,
    apiKeyId: broadcast.created_by_key_id,
    rule: null,
    event: null,
    broadcastId: broadcast.id,
    dedupKey: broadcastDedupKey(broadcast.id, recipientId),
    expiresAt: null,
    dueAt: broadcast.send_at,
  };
}

// Due now: batched delivery jobs; later (quiet hours): one delayed job each. A lost enqueue
// leaves a due `queued` row, which the delivery sweep picks up.
async function enqueueDeliveries(deps: ChunkDeps, messages: MessageRow[]): Promise<void> {
  const now = deps.now().getTime();
  const queued = messages.filter((m) => m.status === "queued");
  const dueNow = queued.filter((m) => m.send_at.getTime() <= now);
  const later = queued.filter((m) => m.send_at.getTime() > now);
  await handOffJobs(deps, [
    ...deliveryJobsFor(dueNow.map((m) => ({ messageId: m.id, generation: m.generation }))),
    ...later.map((m) => ({
      name: "deliver-message" as const,
      payload: { messageId: m.id, generation: m.generation },
      opts: { sendAt: m.send_at },
    })),
  ]);
}
