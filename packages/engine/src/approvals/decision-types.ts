import type { Queues } from "@svc/queue";

/**
 * What decisions enqueue after their commit (deliveries, callbacks, notice ingests), and the Redis
 * connection that kicks the outbox relay (docs/outbox.md "Writing an entry").
 */
export type DecisionQueues = Pick<Queues, "enqueueBulk" | "redis" | "prefix">;
