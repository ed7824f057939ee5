import type { SvcConfig } from "@svc/config";
import type { Provider } from "@svc/providers";
import type { Queues } from "@svc/queue";
import type { MessageRow, RootDatabase } from "@svc/store";
import type { ScreeningGate } from "./screening-gate";

/** What the provider of a channel gets for links: URLs filled into content, plus the tracking token. */
export interface DeliveryLinkValues {
  preferences_url: string | null;
  unsubscribe_url: string | null;
  /** The RFC 8058 one-click POST target (List-Unsubscribe). */
  one_click_url: string | null;
  tracking_token: string | null;
  /** A reviewer's link to the held item this notification is about (docs/approvals.md "Review links"). */
  review_url: string | null;
}

/** Computes a message's live link values (and stores their lookup hashes); raw tokens are never stored. */
export type DeliveryLinkSource = (message: MessageRow, now: Date) => Promise<DeliveryLinkValues>;

export interface DeliveryLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

export interface DeliveryDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  queues: Pick<Queues, "enqueue">;
  logger: DeliveryLogger;
  now: () => Date;
  /** One provider per configured channel, built once per process (`createProviders`). */
  providers: ReadonlyMap<string, Provider>;
  links: DeliveryLinkSource;
  /** The screening seam; see screening-gate.ts. */
  screen: ScreeningGate;
  /** Base of the retry backoff (doubles per retry, 50 % jitter); tests use a few milliseconds. */
  retryBaseMs: number;
  /** Jitter source in [0, 1); tests pin it. */
  random?: () => number;
}
