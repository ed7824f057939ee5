import type { MessageRow } from "@svc/store";

// The screening seam (SPEC 1.1 step 12, ARCHITECTURE "How data flows" 4): delivery calls the gate
// after the send-time re-checks and before any provider is asked. Screening itself (its own
// `screen-message` job and queue, the stored verdict, holding as `pending_approval` with
// `screening: <risks>`, lowering importance) belongs to the screening issue, which replaces
// `noScreening` in the worker's wiring with a gate that reads the stored verdict.

export type ScreeningVerdict =
  /** Deliver now (screening passed, lowered the importance in the row, or does not apply). */
  | { action: "send" }
  /** Screening moved the message elsewhere (held for approval, or it waits for a verdict): stop here. */
  | { action: "stop" };

export type ScreeningGate = (message: MessageRow, now: Date) => Promise<ScreeningVerdict>;

/** No screening configured or built yet: every message is sent as it is (non-agent messages always are). */
export const noScreening: ScreeningGate = async () => ({ action: "send" });
