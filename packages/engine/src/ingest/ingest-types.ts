import type { EventRuleOutcome } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { RootDatabase } from "@svc/store";
import type { DigestJoin } from "./join-digest";

// Types shared by the ingest files (their own file, so no ingest file imports another for types).

export interface IngestDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  now: () => Date;
}

/** Jobs a committed ingest leaves to enqueue: deliveries of queued messages and digest closings. */
export interface FollowUps {
  deliveries: { messageId: string; generation: number; sendAt: Date }[];
  digests: DigestJoin[];
  /** `svc.approval_requested` events written for held messages, to ingest (docs/approvals.md). */
  notices: string[];
}

export type IngestResult =
  | { status: "processed"; outcomes: EventRuleOutcome[]; followUps: FollowUps }
  | { status: "skipped"; reason: "not_found" | "processed" | "failed" };
