// Fatigue per (recipient, category) (docs/policy.md, "Fatigue"):
//   counting ──(after ignored)──▶ paused ──(pause over)──▶ probe out ──(ignored)──▶ paused again
//        ▲                                                      │
//        └──────────────── any engagement resets ───────────────┘
// The counter grows when a message is queued (composition is where the pipeline persists state).
// Engagement (opened, clicked, converted; not delivered) resets everything: the engagement use
// case stores fatigueAfterEngagement() or sets probeEngaged, which the next decision treats alike.
import { importanceRank, type Importance } from "./importance";

export interface FatigueSettings {
  after: number;
  pauseSeconds: number;
}

export interface FatigueState {
  sentSinceEngagement: number;
  pausedUntil: Date | null;
  probeMessageId: string | null;
  /** send_at of the probe. */
  probeSentAt: Date | null;
  probeEngaged: boolean;
}

export const INITIAL_FATIGUE: FatigueState = {
  sentSinceEngagement: 0,
  pausedUntil: null,
  probeMessageId: null,
  probeSentAt: null,
  probeEngaged: false,
};

export function fatigueAfterEngagement(): FatigueState {
  return { ...INITIAL_FATIGUE };
}

export interface FatigueInput {
  state: FatigueState | null;
  settings: FatigueSettings;
  importance: Importance;
  messageId: string;
  /** Composition time: pauses start now, and a probe counts as ignored once it went out before now. */
  now: Date;
  /** When this message would go out: it is paused if that falls inside the pause. */
  sendAt: Date;
}

export type FatigueVerdict =
  { allowed: true; stateIfQueued: FatigueState } | { allowed: false; stateToStore: FatigueState | null };

export function evaluateFatigue(input: FatigueInput): FatigueVerdict {
  const { settings, now, sendAt } = input;
  const stored = input.state ?? INITIAL_FATIGUE;
  const state = stored.probeEngaged ? INITIAL_FATIGUE : stored;
  const counted = { ...state, sentSinceEngagement: state.sentSinceEngagement + 1 };
  const pauseFromNow = new Date(now.getTime() + settings.pauseSeconds * 1000);

  // high and critical are never paused, but they are messages the person may ignore.
  if (importanceRank(input.importance) >= importanceRank("high"))
    return { allowed: true, stateIfQueued: counted };

  if (state.pausedUntil && sendAt.getTime() < state.pausedUntil.getTime())
    return { allowed: false, stateToStore: null };

  if (state.probeMessageId) {
    const probeWentOut = state.probeSentAt !== null && state.probeSentAt.getTime() <= now.getTime();
    if (!probeWentOut) return { allowed: false, stateToStore: null }; // the probe has not had its chance yet
    return {
      allowed: false,
      stateToStore: { ...state, pausedUntil: pauseFromNow, probeMessageId: null, probeSentAt: null },
    };
  }

  if (state.pausedUntil) {
    // The pause is over: this message is the one probe.
    return {
      allowed: true,
      stateIfQueued: { ...counted, pausedUntil: null, probeMessageId: input.messageId, probeSentAt: sendAt },
    };
  }

  if (state.sentSinceEngagement >= settings.after) {
    return { allowed: false, stateToStore: { ...state, pausedUntil: pauseFromNow } };
  }
  return { allowed: true, stateIfQueued: counted };
}
