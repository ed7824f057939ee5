import {
  AppError,
  approvalStatusAt,
  fillLinkPlaceholders,
  isLinkTokenShaped,
  linkDecider,
  linkTokenHash,
  REASON,
  toolCallDetails,
  toolCallOfMetadata,
  type Importance,
  type ToolCallDetails,
} from "@svc/core";
import {
  findAgentRow,
  findApprovalRequest,
  findMessage,
  findRecipientByExternalId,
  findReviewLinkByTokenHash,
  type ApprovalRequestRow,
  type MessageRow,
  type ReviewLinkRow,
} from "@svc/store";
import type { EngineDeps } from "../deps";
import type { ApprovalDeps } from "./approval-requests";
import { decideApprovalRequestOnce, sessionRulesOf } from "./decide-request";
import { decideHeldMessage, type Decision, type HeldDecisionDeps } from "./decide-held-message";

// Hosted review links (docs/approvals.md "Review links"): the token in the path is the reviewer's
// credential. Reading a link changes nothing; a decision through it is the same decision as by API
// (`reviewed_by`/`decided_by` = `link:<reviewer>`). Once the item is decided (by any link or the
// API), expired or withdrawn, every link of it is closed and says who decided and when.

export interface ReviewItem {
  kind: "message" | "action";
  id: string;
  /** The sending agent's key and name (null for a backend's approval request). */
  agent: string | null;
  agentName: string | null;
  /** Whom the agent wants to message (held messages only). */
  recipient: string | null;
  category: string | null;
  importance: Importance;
  title: string;
  body: string;
  deadline: Date;
  /** A coding agent's tool call waiting for permission (docs/hooks.md), shown as what will run. */
  toolCall: ReviewToolCall | null;
}

export interface ReviewToolCall {
  tool: string;
  agent: string;
  project: string | null;
  sessionId: string | null;
  cwd: string | null;
  details: ToolCallDetails;
  /** Some of the tool input was cut to fit the request. */
  truncated: boolean;
  /** What "Allow for this session" grants; null when the call cannot be allowed for its session. */
  sessionRules: string[] | null;
}

export interface ReviewOutcome {
  status: "approved" | "rejected" | "expired" | "withdrawn";
  /** Who decided (a key's name or `link:<reviewer>`); null when nobody did. */
  by: string | null;
  at: Date | null;
  comment: string | null;
}

/** The reviewer as a known person (null when no person has that external id): the page's language. */
interface ReviewerProfile {
  locale: string | null;
  timezone: string | null;
}

export type ReviewPage =
  | { state: "open"; reviewer: string; profile: ReviewerProfile | null; item: ReviewItem }
  | {
      state: "closed";
      reviewer: string;
      profile: ReviewerProfile | null;
      item: ReviewItem;
      outcome: ReviewOutcome;
    };

/** What the link shows, as of now; 404 for a token no link has. */
export async function reviewPageFor(deps: EngineDeps, token: string): Promise<ReviewPage> {
  const link = await linkOf(deps, token);
  return pageOf(deps, link);
}

export type LinkDecisionResult =
  /** This link's decision was taken; the page shows it. */
  | { decided: true; page: ReviewPage }
  /** Too late: decided, expired or withdrawn before (410 with the page saying so). */
  | { decided: false; page: ReviewPage };

export async function decideByReviewLink(
  deps: HeldDecisionDeps & ApprovalDeps,
  token: string,
  decision: Decision,
): Promise<LinkDecisionResult> {
  const link = await linkOf(deps, token);
  const decider = { name: linkDecider(link.reviewer), keyId: null };
  const result = link.message_id
    ? await decideHeldMessage(deps, link.message_id, decision, decider)
    : await decideApprovalRequestOnce(deps, link.approval_id!, decision, decider);
  return { decided: result.kind === "decided", page: await pageOf(deps, link) };
}

async function linkOf(deps: EngineDeps, token: string): Promise<ReviewLinkRow> {
  const link = isLinkTokenShaped(token)
    ? await findReviewLinkByTokenHash(deps.prisma, linkTokenHash(token))
    : null;
  if (!link) throw new AppError("not_found", "this review link does not exist");
  return link;
}

async function pageOf(deps: EngineDeps, link: ReviewLinkRow): Promise<ReviewPage> {
  const now = deps.now();
  const person = await findRecipientByExternalId(deps.prisma, link.reviewer);
  const reviewer = {
    reviewer: link.reviewer,
    profile: person ? { locale: person.locale, timezone: person.timezone } : null,
  };
  if (link.message_id) {
    const message = await findMessage(deps.prisma, link.message_id);
    if (!message) throw new AppError("not_found", "this review link does not exist");
    const agent = message.agent_key ? await findAgentRow(deps.prisma, message.agent_key) : null;
    const item = messageItem(message, agent?.name ?? null);
    const outcome = messageOutcome(message, now);
    return outcome ? { state: "closed", ...reviewer, item, outcome } : { state: "open", ...reviewer, item };
  }
  const request = await findApprovalRequest(deps.prisma, link.approval_id!);
  if (!request) throw new AppError("not_found", "this review link does not exist");
  const agent = request.agent_key ? await findAgentRow(deps.prisma, request.agent_key) : null;
  const item = requestItem(request, agent?.name ?? null);
  const outcome = requestOutcome(request, now);
  return outcome ? { state: "closed", ...reviewer, item, outcome } : { state: "open", ...reviewer, item };
}

function messageItem(message: MessageRow, agentName: string | null): ReviewItem {
  const content = (message.content ?? {}) as { title?: unknown; body?: unknown };
  // Links inside the message point at its recipient's pages: the reviewer sees no such markers.
  const text = (value: unknown) => (typeof value === "string" ? fillLinkPlaceholders(value, {}) : "");
  return {
    kind: "message",
    id: message.id,
    agent: message.agent_key,
    agentName,
    recipient: message.recipient_external_id,
    category: message.category,
    importance: message.importance,
    title: text(content.title),
    body: text(content.body),
    deadline: message.approval_expires_at ?? message.send_at,
    toolCall: null,
  };
}

function requestItem(request: ApprovalRequestRow, agentName: string | null): ReviewItem {
  return {
    kind: "action",
    id: request.id,
    agent: request.agent_key,
    agentName,
    recipient: null,
    category: null,
    importance: request.importance,
    title: request.title,
    body: request.body,
    deadline: request.expires_at,
    toolCall: toolCallOf(request),
  };
}

function toolCallOf(request: ApprovalRequestRow): ReviewToolCall | null {
  const call = toolCallOfMetadata(request.metadata);
  if (call === null) return null;
  return {
    tool: call.tool_name,
    agent: call.agent,
    project: call.project,
    sessionId: call.session_id,
    cwd: call.cwd,
    details: toolCallDetails(call),
    truncated: call.truncated === true,
    sessionRules: sessionRulesOf(request)?.rules ?? null,
  };
}

/** Null while the held message still waits (and its deadline has not passed). */
function messageOutcome(message: MessageRow, now: Date): ReviewOutcome | null {
  const deadline = message.approval_expires_at ?? message.send_at;
  if (message.status === "pending_approval")
    return deadline.getTime() > now.getTime()
      ? null
      : { status: "expired", by: null, at: deadline, comment: null };
  if (message.reviewed_by && message.reviewed_at) {
    const rejected = message.status === "cancelled" && message.status_reason?.startsWith(REASON.rejected);
    return {
      status: rejected ? "rejected" : "approved",
      by: message.reviewed_by,
      at: message.reviewed_at,
      // `rejected: <reason>` keeps the reviewer's reason; an approval's comment is not stored.
      comment: rejected ? rejectionComment(message.status_reason!) : null,
    };
  }
  if (message.status === "suppressed" && message.status_reason === "expired")
    return { status: "expired", by: null, at: deadline, comment: null };
  return { status: "withdrawn", by: null, at: message.updated_at, comment: null };
}

function rejectionComment(statusReason: string): string | null {
  const prefix = `${REASON.rejected}: `;
  return statusReason.startsWith(prefix) ? statusReason.slice(prefix.length) : null;
}

function requestOutcome(request: ApprovalRequestRow, now: Date): ReviewOutcome | null {
  const status = approvalStatusAt(request, now);
  if (status === "pending") return null;
  if (status === "expired") return { status: "expired", by: null, at: request.expires_at, comment: null };
  return { status, by: request.decided_by, at: request.decided_at, comment: request.comment };
}
