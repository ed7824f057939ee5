import type { MessageRow } from "@svc/store";

// The screening seam (docs/delivery.md "Re-checks", docs/screening.md "How it runs"): delivery
// calls the gate after the send-time re-checks and before any provider is asked. With screening
// on, the worker wires `screeningGate` (../screening/screening-handoff.ts): an agent message without
// a verdict is handed to the `screening` queue and its delivery stops; everything else is sent.

type ScreeningVerdict =
  /** Deliver now (screening passed, lowered the importance in the row, or does not apply). */
  | { action: "send" }
  /** Screening moved the message elsewhere (held for approval, or it waits for a verdict): stop here. */
  | { action: "stop" };

export type ScreeningGate = (message: MessageRow, now: Date) => Promise<ScreeningVerdict>;

/** Screening off: every message is sent as it is (non-agent messages always are). */
export const noScreening: ScreeningGate = async () => ({ action: "send" });
