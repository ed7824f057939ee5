import type { ScreeningAnswer } from "@svc/core";
import type { PostJsonFailure } from "../../shared/post-json";
import type { ScreeningInput } from "../screening-input";

// One interface for the decision model, two adapters (docs/screening.md "Adapters"): `http`
// posts the message and reads four probabilities, `openai` asks an OpenAI-compatible chat API four
// one-token questions and reads the probabilities from the token log-probabilities.

export type ModelReply =
  | { ok: true; answer: ScreeningAnswer; model: string | null }
  /** `retryable`: worth asking again later (timeout, refused, 408/429/5xx, malformed answer). */
  | { ok: false; error: string; retryable: boolean; retryAfterMs?: number };

export interface ScreeningModel {
  ask(input: ScreeningInput): Promise<ModelReply>;
}

export interface ModelSettings {
  url: string;
  model: string | null;
  /** SVC_SCREENING_API_KEY, sent as a Bearer token when set. */
  apiKey: string | null;
  /** Bounds one screening (all of its requests together). */
  timeoutMs: number;
}

/** A failed exchange: a client error (400, 401, 404…) will not heal by itself; the rest may. */
export function failedReply(failure: PostJsonFailure): ModelReply {
  const retryable =
    failure.kind !== "http" || failure.status === 408 || failure.status === 429 || failure.status >= 500;
  return {
    ok: false,
    error: failure.error,
    retryable,
    ...(failure.kind === "http" && failure.retryAfterMs !== undefined
      ? { retryAfterMs: failure.retryAfterMs }
      : {}),
  };
}

/** A 2xx whose content is not the answer asked for: the model may answer properly next time. */
export const malformedReply = (error: string): ModelReply => ({ ok: false, error, retryable: true });
