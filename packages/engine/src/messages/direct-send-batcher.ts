import type { Queues } from "@svc/queue";
import { $transaction, lockRecipient, lockRecipients, sqlTransaction } from "@svc/store";
import { assertAgentMayHold } from "../shared/pending-cap";
import { composeMessagesOfPeople } from "../compose/compose-batch";
import { composeMessage } from "../compose/compose-message";
import type { ComposeDeps, ComposeRequest, ComposeResult } from "../compose/compose-types";
import type { EngineDeps } from "../deps";
import { enqueueFollowUps } from "../ingest/follow-ups";
import { groupCommit } from "../shared/group-commit";
import { readReferences, recipientIdOrRefusal, type SendReferences } from "./send-references";

// Group commit for direct sends (docs/messages.md "Direct sends"): sends that arrive together are
// checked and decided together: their references read in one statement, then one transaction
// that locks every person, reads their rows and writes the messages in a few statements for all
// (compose/compose-batch.ts). Each send is still decided under its person's lock by the same
// decision as a lone one. A batch holds one send per person, so what a send counts (caps,
// fatigue) cannot change under it within the batch; a person's next send waits for the next batch.
// When nothing else is in flight a send goes at once.

export type DirectSendDeps = ComposeDeps &
  Pick<EngineDeps, "prisma" | "logger"> & { queues: Pick<Queues, "enqueueBulk"> };

/** A decided send; `enqueued`: its delivery job (or a held message's notices) went with its batch's. */
export interface DirectSendResult {
  composed: ComposeResult;
  enqueued: boolean;
}

/** A send as the batch needs it: what it names, and its compose request once its person is known. */
export interface DirectSend {
  references: SendReferences;
  requestFor(recipientId: string): ComposeRequest;
}

// The policy transaction waits for the recipients' locks behind concurrent sends to those people.
const TRANSACTION = { timeout: 10_000, maxWait: 5_000 };

interface Waiting {
  send: DirectSend;
  resolve: (result: DirectSendResult) => void;
  reject: (error: unknown) => void;
}

type Add = (item: Waiting) => void;
const batchers = new WeakMap<DirectSendDeps, Add>();

/**
 * Checks the references of a send without an agent or idempotency key (422 for a missing one),
 * then decides and writes it under its person's lock, with whatever other sends arrived with it;
 * resolves after the commit. Throws like composeMessage (ComposeReferenceError).
 */
export function decideDirectSend(deps: DirectSendDeps, send: DirectSend): Promise<DirectSendResult> {
  let add = batchers.get(deps);
  if (!add) {
    const run = (batch: Waiting[]) => decideBatch(deps, batch, add!);
    add = groupCommit(run, { maxBatch: 64, maxInFlight: 2, lingerMs: 2 });
    batchers.set(deps, add);
  }
  const queue = add;
  return new Promise<DirectSendResult>((resolve, reject) => queue({ send, resolve, reject }));
}

/**
 * One send in a transaction of its own: an agent's sends (held items, the pending cap checked
 * after the write), idempotent ones (a key may be released before a refusal), and the fallback.
 */
export function decideAlone(deps: DirectSendDeps, request: ComposeRequest): Promise<ComposeResult> {
  return $transaction(
    deps.prisma,
    async (tx) => {
      await lockRecipient(tx, request.recipientId);
      const composed = await composeMessage(tx, deps, request);
      // The next held item of an agent at approvals.max_pending_per_agent is refused (429).
      if (request.agentKey && !composed.duplicate && composed.message.status === "pending_approval")
        await assertAgentMayHold(tx, deps, request.agentKey, { adding: 0 });
      return composed;
    },
    TRANSACTION,
  );
}

async function decideBatch(deps: DirectSendDeps, batch: Waiting[], add: Add): Promise<void> {
  const later: Waiting[] = [];
  try {
    const known = await readReferences(
      deps.prisma,
      batch.map((item) => item.send.references),
    );
    const people = new Set<string>();
    const now: { item: Waiting; request: ComposeRequest }[] = [];
    for (const item of batch) {
      let recipientId: string;
      try {
        recipientId = recipientIdOrRefusal(item.send.references, known);
      } catch (error) {
        item.reject(error);
        continue;
      }
      if (people.has(recipientId)) later.push(item);
      else {
        people.add(recipientId);
        now.push({ item, request: item.send.requestFor(recipientId) });
      }
    }
    if (now.length === 0) return;
    try {
      // On a connection of the pool, without Prisma (store's sql-transaction.ts): every statement
      // of a batch is raw SQL. Anything that would need Prisma (none of a batch's usual work)
      // fails the batch, which then runs each send alone below.
      const outcomes = await sqlTransaction(
        deps.prisma,
        async (tx) => {
          await lockRecipients(tx, [...people]);
          return composeMessagesOfPeople(
            tx,
            deps,
            now.map((n) => n.request),
            known,
          );
        },
        { statementTimeoutMs: TRANSACTION.timeout },
      );
      const decided = outcomes.flatMap((o) => (o.ok ? [o.result] : []));
      const enqueued = await enqueueBatch(deps, decided);
      now.forEach(({ item }, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) item.resolve({ composed: outcome.result, enqueued });
        else item.reject(outcome.error);
      });
    } catch {
      // One send's failure (or a deadlock with another batch) must not fail the others: each runs alone.
      await Promise.all(now.map(({ item, request }) => settle(item, decideAlone(deps, request))));
    }
  } catch (error) {
    // The references could not be read: every send of the batch fails with that error.
    for (const item of batch) if (!later.includes(item)) item.reject(error);
  } finally {
    for (const item of later) add(item);
  }
}

// After the commit, one bulk add for the batch: queued messages due now share `deliver-messages`
// jobs as ingest's do (a lone one keeps its `deliver-message` job). A failed add leaves each send
// to enqueue its own (the delivery sweep repairs a lost one, docs/messages.md).
async function enqueueBatch(deps: DirectSendDeps, decided: ComposeResult[]): Promise<boolean> {
  const queued = decided.map((d) => d.message).filter((m) => m.status === "queued");
  try {
    await enqueueFollowUps(
      deps,
      {
        deliveries: queued.map((m) => ({ messageId: m.id, generation: m.generation, sendAt: m.send_at })),
        digests: [],
        notices: decided.flatMap((d) => d.notices),
      },
      deps.now(),
    );
    return true;
  } catch (error) {
    deps.logger.warn("batch enqueue failed; each send enqueues its own", {
      messages: queued.length,
      error: (error as Error).message,
    });
    return false;
  }
}

async function settle(item: Waiting, result: Promise<ComposeResult>): Promise<void> {
  try {
    item.resolve({ composed: await result, enqueued: false });
  } catch (error) {
    item.reject(error);
  }
}
