import type { Importance } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { MessageRow } from "@svc/store";

// The contract between whoever asks for a message (ingest for rules, direct sends, later
// broadcasts and digests) and composeMessage, which decides it under the recipient's lock and
// writes it. Callers hold the transaction and the recipient lock; composeMessage does no network I/O.

export interface ComposeDeps {
  config: SvcConfig;
  now: () => Date;
}

export interface ComposeRequest {
  /** Internal recipient id (the row exists; callers create bare profiles first). */
  recipientId: string;
  template: string;
  category: string;
  /** Planned channels in fallback order. */
  channels: string[];
  importance: Importance;
  data: Record<string, unknown>;
  /** Who sends: `backend` or the agent key (idempotency scope); agent limits apply when set. */
  sender: string;
  agentKey: string | null;
  apiKeyId: string | null;
  /** Rule-produced messages carry their rule (delay, cooldown, expires_in) and event. */
  rule: {
    key: string;
    delaySeconds: number | null;
    cooldownSeconds: number | null;
    expiresInSeconds: number | null;
  } | null;
  event: { id: string; name: string; created_at: Date } | null;
  broadcastId?: string | null;
  digestId?: string | null;
  /** `evt:<event>:<rule>`, `brd:<broadcast>:<recipient>`, `dig:<digest>`: a second compose finds the first. */
  dedupKey: string | null;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  expiresAt: Date | null;
  /** Earliest send time before delay and quiet hours (a broadcast's `send_at`); absent or null: now. */
  dueAt?: Date | null;
  /** Dry run (POST /v1/rules/evaluate): decide, write nothing. */
  dryRun?: boolean;
  /** Text prepared before the transaction (a digest's AI summary), put over the template's rendering. */
  contentOverride?: ContentOverride | null;
}

/**
 * Pre-rendered content for the render step: the template still renders (locale, url, thread,
 * template errors), then `text` replaces title and body on every channel and `extra` is stored
 * on the content. Made outside the transaction, so composing stays free of network I/O.
 */
export interface ContentOverride {
  /** Null keeps the template's title and body. */
  text: { title: string; body: string } | null;
  /** Fields added to the stored content, e.g. a digest's `summary`. */
  extra?: Record<string, unknown>;
}

export interface ComposeResult {
  /** The stored message (for a dry run: an unsaved row shape). */
  message: MessageRow;
  /**
   * True when dedupKey/idempotency matched an existing message, which is returned instead. In a
   * dry run the returned row is the unsaved decision (`suppressed` / `duplicate`).
   */
  duplicate: boolean;
  /** `svc.approval_requested` events written for a held message: ingest them after the commit. */
  notices: string[];
}
