// One signed JSON POST, shared by the webhook provider and the approval callbacks
// (docs/providers.md "webhook", docs/approvals.md "Decision callbacks"): the raw body is signed as
// sent, and the answer is classified by status code or error class, never by message text.
import type { Dispatcher } from "undici";
import { providerPost, statusFailure } from "./http";
import { accepted, type SendResult } from "./provider";
import { SIGNATURE_HEADER, signPayload } from "./webhook-signature";

export const SVC_USER_AGENT = "svc";

export interface SignedJsonPost {
  url: string;
  /** Several while a secret is being rotated: each signs (docs/webhooks.md). */
  secret: string | readonly string[];
  /** The exact bytes sent and signed. */
  body: string;
  /** Receivers drop a repeat carrying a key they already handled. */
  idempotencyKey: string;
  timeoutMs: number;
  now: () => Date;
  /** Starts the error text: `<label> 503`, `<label> timeout after 10000 ms`. */
  label: string;
  /** For a URL taken from data: a guarded dispatcher (createGuardedDispatcher). */
  dispatcher?: Dispatcher;
}

/** The outcome, with the answer's status code when there was an answer. */
export type SignedPostResult = SendResult & { statusCode?: number };

/** Resolves with ok, or a failure (retryable: 408, 429, 5xx, timeout, connection); never throws. */
export async function postSignedJson(post: SignedJsonPost): Promise<SignedPostResult> {
  const timestamp = Math.floor(post.now().getTime() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "Idempotency-Key": post.idempotencyKey,
    "User-Agent": SVC_USER_AGENT,
    [SIGNATURE_HEADER]: signPayload(post.secret, post.body, timestamp),
  };
  return providerPost(post.label, post.timeoutMs)(
    { url: post.url, headers, body: post.body, ...(post.dispatcher ? { dispatcher: post.dispatcher } : {}) },
    (response): SignedPostResult => {
      if (response.status >= 200 && response.status < 300)
        return { ...accepted(), statusCode: response.status };
      return {
        ...statusFailure(post.label, response.status, response.headers, post.now()),
        statusCode: response.status,
      };
    },
  );
}
