import type { Importance } from "../policy/importance";
import { linkPlaceholder } from "../render/link-placeholders";

// `svc.approval_requested` (docs/approvals.md "Reviewers are told"): one event per reviewer when a
// message is held or an approval request is created. Its recipient is the reviewer; its data says
// what waits. `review_url` is a placeholder that delivery fills with that reviewer's own link, so
// no stored row ever holds the link's token.

export const APPROVAL_REQUESTED = "svc.approval_requested";

/** Characters of the body the notice carries. */
export const NOTICE_BODY_CHARACTERS = 500;

export interface HeldMessageNotice {
  kind: "message";
  message_id: string;
  agent: string | null;
  agent_name: string | null;
  /** The person the agent wants to message (external id). */
  recipient: string;
  category: string;
  title: string;
  body: string;
  importance: Importance;
  /** The review deadline. */
  expires_at: Date;
}

export interface ActionNotice {
  kind: "action";
  approval_id: string;
  agent: string | null;
  agent_name: string | null;
  title: string;
  body: string;
  importance: Importance;
  expires_at: Date;
}

export type ReviewNotice = HeldMessageNotice | ActionNotice;

/** The event data for one reviewer; `withReviewUrl` when svc has a public URL to link to. */
export function reviewNoticeData(notice: ReviewNotice, withReviewUrl: boolean): Record<string, unknown> {
  const data: Record<string, unknown> = {
    ...notice,
    body: cutToCharacters(notice.body, NOTICE_BODY_CHARACTERS),
    expires_at: notice.expires_at.toISOString(),
  };
  if (withReviewUrl) data.review_url = linkPlaceholder("review_url");
  return data;
}

/** The first `count` characters (code points, so no surrogate pair is split). */
export function cutToCharacters(text: string, count: number): string {
  const characters = Array.from(text);
  return characters.length <= count ? text : characters.slice(0, count).join("");
}

/** The notice's idempotency key: one event per item and reviewer, whatever retries. */
export const reviewNoticeKey = (itemId: string, reviewer: string): string => `review:${itemId}:${reviewer}`;
