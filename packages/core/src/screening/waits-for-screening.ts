// Which messages wait for a screening verdict before delivery (docs/screening.md "How it runs").

export interface ScreenedFields {
  agent_key: string | null;
  reviewed_at: Date | null;
  screening: unknown;
}

/** An agent's message that no person approved and that has no stored verdict (every retry reuses one). */
export function needsScreening(message: ScreenedFields): boolean {
  return message.agent_key !== null && message.reviewed_at === null && message.screening === null;
}

/**
 * Whether a message just composed is written waiting for its verdict (`sending`, no lease, its
 * `screen-message` job enqueued after the commit) rather than `queued`: screening is on, the policy
 * queued it for now, and it needs a verdict. A delivery trip would only hand it over; one due later
 * is handed over when its delivery comes (after the send-time re-checks).
 */
export function composedWaitingForScreening(
  message: ScreenedFields & { status: string; send_at: Date },
  screeningOn: boolean,
  now: Date,
): boolean {
  return (
    screeningOn &&
    message.status === "queued" &&
    message.send_at.getTime() <= now.getTime() &&
    needsScreening(message)
  );
}
