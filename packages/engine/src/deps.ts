import type { SvcConfig } from "@svc/config";
import type { Logger } from "@svc/log";
import type { RootDatabase } from "@svc/store";

/**
 * The resources a use case may touch, handed in by the app that composes them (no DI container).
 * `now` is injected so policy and expiry can be tested at any instant.
 */
export interface EngineDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  logger: Logger;
  now: () => Date;
}
