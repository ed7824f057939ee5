import type { SvcConfig } from "@svc/config";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import type { RootDatabase } from "@svc/store";

/** What the composition root (build-api.ts) hands the routes; a route names the part it uses. */
export interface RouteDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  logger: Logger;
  queues: Queues;
  now: () => Date;
}
