import type { SvcConfig } from "@svc/config";
import type { Sweep } from "@svc/queue";
import {
  deleteClosedDigestsBefore,
  deleteFinalMessagesBefore,
  deleteFinishedWebhookDeliveriesBefore,
  deleteSettledEventsBefore,
  type RootDatabase,
} from "@svc/store";

// Data retention (docs/operations.md "Data retention"): the `apply-retention` sweep deletes rows
// older than the configured days in small batches, a bounded number per run. Only settled rows go
// (final messages, processed or failed events, closed digests, finished webhook deliveries); the
// consent ledger never does.

const DAY_MS = 86_400_000;
export const RETENTION_EVERY_MS = 60_000;

export interface RetentionResult {
  events: number;
  messages: number;
  digests: number;
  webhooks: number;
}

export function retentionEnabled(config: Pick<SvcConfig, "retention">): boolean {
  const r = config.retention;
  return (
    r.events_days !== null || r.messages_days !== null || r.digests_days !== null || r.webhooks_days !== null
  );
}

export async function applyRetention(
  deps: { prisma: RootDatabase; config: Pick<SvcConfig, "retention"> },
  now: Date,
): Promise<RetentionResult> {
  const r = deps.config.retention;
  const cutoff = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const drain = async (days: number | null, remove: (before: Date, limit: number) => Promise<number>) => {
    if (days === null) return 0;
    let deleted = 0;
    for (let batch = 0; batch < r.max_batches; batch++) {
      const n = await remove(cutoff(days), r.batch_size);
      deleted += n;
      if (n < r.batch_size) break;
    }
    return deleted;
  };
  return {
    events: await drain(r.events_days, (before, limit) =>
      deleteSettledEventsBefore(deps.prisma, before, now, limit),
    ),
    messages: await drain(r.messages_days, (before, limit) =>
      deleteFinalMessagesBefore(deps.prisma, before, limit),
    ),
    digests: await drain(r.digests_days, (before, limit) =>
      deleteClosedDigestsBefore(deps.prisma, before, limit),
    ),
    webhooks: await drain(r.webhooks_days, (before, limit) =>
      deleteFinishedWebhookDeliveriesBefore(deps.prisma, before, limit),
    ),
  };
}

/** The sweep, or none while every retention setting is off (`webhooks_days` is on by default). */
export function retentionSweeps(deps: {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "retention">;
}): Sweep[] {
  if (!retentionEnabled(deps.config)) return [];
  return [
    { name: "apply-retention", every: RETENTION_EVERY_MS, run: ({ now }) => applyRetention(deps, now) },
  ];
}
