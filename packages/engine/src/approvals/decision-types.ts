import type { Queues } from "@svc/queue";

/** What decisions enqueue after their commit: deliveries, callbacks, notice ingests. */
export type DecisionQueues = Pick<Queues, "enqueueBulk">;
