import type { BulkItem, Queues } from "@svc/queue";

// How a use case hands on the jobs its commit left (docs/delivery.md "Inline delivery"): due
// deliveries go to this process's own delivery when the process has one (`deliverHere`), and
// everything else, with whatever that delivery has no room for, to the queues. The rows are
// committed before any of this runs, so a lost hand-off is only slower: the sweeps repair it.

/** A process's own delivery, for deliveries due now (delivery/inline-delivery.ts). */
export interface DeliverHere {
  /** Starts what it can of the due deliveries among `items`; returns the items left to enqueue. */
  take(items: readonly BulkItem[]): BulkItem[];
  /** Resolves once this delivery has room again (a broadcast composes no faster than it delivers). */
  room(): Promise<void>;
}

export interface HandOffDeps {
  queues: Pick<Queues, "enqueueBulk">;
  /** Absent where the process does not deliver (the API, a worker without the delivery queue). */
  deliverHere?: DeliverHere | undefined;
}

/** Delivers here what `deps.deliverHere` takes of `items`, and enqueues the rest in one bulk add. */
export async function handOffJobs(deps: HandOffDeps, items: readonly BulkItem[]): Promise<void> {
  const rest = deps.deliverHere ? deps.deliverHere.take(items) : items;
  if (rest.length > 0) await deps.queues.enqueueBulk(rest);
}
