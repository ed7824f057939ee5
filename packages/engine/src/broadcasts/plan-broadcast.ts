import { broadcastTransition, evaluateCondition } from "@svc/core";
import type { Queues } from "@svc/queue";
import {
  $transaction,
  changeBroadcastStatus,
  completeBroadcastIfDone,
  countBroadcastMembers,
  createBroadcastChunks,
  deleteBroadcastMembers,
  findBroadcast,
  findOpenChunkPositions,
  findRecipientProfilesAfter,
  insertBroadcastMembers,
  lockBroadcastPlan,
  setBroadcastTotal,
  stampBroadcastStarted,
  type AudienceProfile,
  type BroadcastRow,
  type RootDatabase,
  type Transaction,
} from "@svc/store";
import { broadcastCompletedPerRow } from "../outbox/emit";
import { isFilterAudience } from "./broadcast-input";

// Planning a run (docs/broadcasts.md "How it runs"): at `send_at` the broadcast becomes
// `running`; the first run fixes the audience (a filter is evaluated over the recipients a page at
// a time) and cuts it into chunks; every run then enqueues the chunks not done yet.

/** Members per chunk job: small enough that any worker takes one, large enough to be worth a job. */
export const CHUNK_SIZE = 250;
/** Recipients read per page while a filter is evaluated (never the whole audience at once). */
const FILTER_PAGE = 1000;
const PLAN_TRANSACTION = { timeout: 300_000, maxWait: 10_000 };

export interface PlanDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueue" | "enqueueBulk">;
  now: () => Date;
}

export type PlanResult = "gone" | "stale" | "not_due" | "not_running" | "completed" | "enqueued";

/** The plan job of the broadcast's current run, at `send_at` when it is scheduled. */
export async function enqueuePlan(
  deps: { queues: Pick<Queues, "enqueue"> },
  row: Pick<BroadcastRow, "id" | "run" | "status" | "send_at">,
  jobId?: string,
): Promise<void> {
  const sendAt = row.status === "scheduled" && row.send_at ? row.send_at : undefined;
  await deps.queues.enqueue("plan-broadcast", { broadcastId: row.id, run: row.run }, { sendAt, jobId });
}

export async function planBroadcast(
  deps: PlanDeps,
  { broadcastId, run }: { broadcastId: string; run: number },
): Promise<{ result: PlanResult; chunks?: number }> {
  let row = await findBroadcast(deps.prisma, broadcastId);
  if (!row) return { result: "gone" };
  // A later start or resume planned its own run.
  if (row.run !== run) return { result: "stale" };
  const now = deps.now();
  if (row.status === "scheduled") {
    if (!broadcastTransition("scheduled", "begin", { sendAt: row.send_at, now }).ok) {
      // Ran early (clocks differ): again at send_at, under an id of its own.
      await enqueuePlan(deps, row, `${row.id}-${row.run}-plan-at-${row.send_at!.getTime()}`);
      return { result: "not_due" };
    }
    row =
      (await changeBroadcastStatus(deps.prisma, broadcastId, { from: "scheduled", to: "running" }, now)) ??
      row;
  }
  if (row.status !== "running") return { result: "not_running" };
  await stampBroadcastStarted(deps.prisma, broadcastId, now);
  if (row.total === null) await fixAudience(deps, row);
  const positions = await findOpenChunkPositions(deps.prisma, broadcastId);
  if (positions.length === 0) {
    const completedAt = deps.now();
    await completeBroadcastIfDone(
      deps.prisma,
      broadcastId,
      completedAt,
      broadcastCompletedPerRow(completedAt),
    );
    return { result: "completed" };
  }
  await deps.queues.enqueueBulk(
    positions.map((position) => ({
      name: "send-broadcast-chunk" as const,
      payload: { broadcastId, run, position },
    })),
  );
  return { result: "enqueued", chunks: positions.length };
}

/** Members (a filter's, found now) cut into chunks, and `total` set: all or nothing. */
async function fixAudience(deps: PlanDeps, row: BroadcastRow): Promise<void> {
  await $transaction(
    deps.prisma,
    async (tx) => {
      await lockBroadcastPlan(tx, row.id);
      const current = await findBroadcast(tx, row.id);
      if (!current || current.total !== null) return; // another planner finished first
      if (isFilterAudience(current.audience)) await findFilterMembers(tx, row.id, current.audience.filter);
      await createBroadcastChunks(tx, row.id, CHUNK_SIZE);
      await setBroadcastTotal(tx, row.id, await countBroadcastMembers(tx, row.id));
    },
    PLAN_TRANSACTION,
  );
}

async function findFilterMembers(tx: Transaction, broadcastId: string, filter: unknown): Promise<void> {
  await deleteBroadcastMembers(tx, broadcastId);
  let after: string | null = null;
  let seq = 0;
  for (;;) {
    const page: AudienceProfile[] = await findRecipientProfilesAfter(tx, after, FILTER_PAGE);
    if (page.length === 0) return;
    const matched = page.filter((person) => matches(filter, person)).map((person) => person.external_id);
    await insertBroadcastMembers(tx, broadcastId, seq, matched);
    seq += matched.length;
    after = page[page.length - 1]!.id;
  }
}

// The same evaluator as rule conditions; a person the filter cannot be evaluated for is left out.
function matches(filter: unknown, person: AudienceProfile): boolean {
  const result = evaluateCondition(filter, {
    recipient: {
      external_id: person.external_id,
      locale: person.locale,
      timezone: person.timezone,
      region: person.region,
      attributes: person.attributes ?? {},
    },
  });
  return result.ok && result.value;
}
