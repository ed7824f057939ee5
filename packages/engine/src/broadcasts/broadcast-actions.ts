import { AppError, BROADCAST_CANCELLED, broadcastTransition, type BroadcastAction } from "@svc/core";
import type { Queues } from "@svc/queue";
import {
  changeBroadcastStatus,
  stampBroadcastStarted,
  type BroadcastRow,
  type RootDatabase,
} from "@svc/store";
import type { Logger } from "@svc/log";
import { cancelBroadcastMessages } from "./cancel-broadcast-messages";
import { recordFinalMessage } from "../metrics/record-metrics";
import { loadBroadcast } from "./broadcasts-resource";
import { serializeBroadcast, type BroadcastView } from "./serialize-broadcast";
import { enqueuePlan } from "./plan-broadcast";

// start, pause, resume, cancel (docs/broadcasts.md "Lifecycle"): the pure transition decides,
// a compare-and-set on the status it leaves applies it, and the work follows after the commit.

export interface BroadcastActionDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueue">;
  logger: Pick<Logger, "warn">;
  now: () => Date;
}

// Two operators at once: the loser re-reads and is judged against the new state.
const ATTEMPTS = 3;

export async function actOnBroadcast(
  deps: BroadcastActionDeps,
  id: string,
  action: BroadcastAction,
): Promise<BroadcastView> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await loadBroadcast(deps, id);
    const now = deps.now();
    const transition = broadcastTransition(current.status, action, { sendAt: current.send_at, now });
    if (!transition.ok) throw new AppError("invalid_state", transition.detail);
    const changed = await changeBroadcastStatus(
      deps.prisma,
      id,
      { from: current.status, to: transition.to, newRun: action === "start" || action === "resume" },
      now,
    );
    if (!changed) continue;
    await afterChange(deps, changed, now);
    return serializeBroadcast(deps.prisma, changed);
  }
  throw new AppError("conflict", `broadcast '${id}' changed concurrently; retry`);
}

async function afterChange(deps: BroadcastActionDeps, row: BroadcastRow, now: Date): Promise<void> {
  if (row.status === "running") await stampBroadcastStarted(deps.prisma, row.id, now);
  if (row.status === "running" || row.status === "scheduled") {
    // A lost enqueue is repaired by the advance-broadcasts sweep.
    await enqueuePlan(deps, row).catch((error: unknown) =>
      deps.logger.warn("broadcast enqueue failed; the sweep will pick it up", {
        broadcast_id: row.id,
        error: (error as Error).message,
      }),
    );
  }
  // After the status commit, so a chunk that composed before it is caught here, and one after
  // it sees `cancelled` itself (docs/broadcasts.md "Cancelling").
  if (row.status === "cancelled")
    recordFinalMessage("cancelled", BROADCAST_CANCELLED, await cancelBroadcastMessages(deps, row.id, now));
}
