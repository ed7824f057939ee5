import { QUEUE_NAMES, type JobLogger, type Queues, type Sweep } from "@svc/queue";

// Dead jobs wait silently in the failed sets; this sweep makes them visible in the logs so an
// operator knows to look at the dashboard or run `svcctl jobs retry-dead`.
export function reportDeadJobsSweep(
  deps: { queues: Pick<Queues, "queue">; logger: JobLogger },
  every = 300_000,
): Sweep {
  return {
    name: "report-dead-jobs",
    every,
    run: async () => {
      const dead: Record<string, number> = {};
      for (const name of QUEUE_NAMES) {
        const count = await deps.queues.queue(name).getFailedCount();
        if (count > 0) dead[name] = count;
      }
      if (Object.keys(dead).length > 0) deps.logger.warn("dead jobs waiting for retry-dead", { dead });
      return { dead };
    },
  };
}
