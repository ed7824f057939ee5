import {
  AppError,
  approvalStatusAt,
  lowerImportance,
  newId,
  senderOf,
  toolCallOfMetadata,
  type Importance,
  type Principal,
} from "@svc/core";
import type { BulkItem } from "@svc/queue";
import {
  $transaction,
  findAgentRow,
  findApprovalRequest,
  insertApprovalRequest,
  listApprovalRequests,
  type AgentRow,
  type ApprovalRequestRow,
  type ApprovalStatus,
} from "@svc/store";
import type { EngineDeps } from "../deps";
import { ingestJobFor } from "../events/commit-events";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { validationError } from "../shared/validation";
import { maskSecretsIn } from "../screening/secret-check";
import { enqueueAfterCommit } from "../shared/after-commit";
import type { DecisionQueues } from "./decision-types";
import { assertAgentMayHold } from "../shared/pending-cap";
import { announceHeldItems } from "../shared/review-notices";

// Approval requests (docs/approvals.md "Approval requests"): an agent (or a backend) asks people
// to decide on an action outside svc; reviewers are told, decide by link or API once
// (decide-request.ts), and the agent's backend hears back by callback or waits on
// GET /v1/approvals/{id}?wait= (wait-for-approval.ts).

export type ApprovalDeps = EngineDeps & { queues: DecisionQueues };

/** Body of POST /v1/approvals; the OpenAPI document checked shapes and bounds. */
export interface ApprovalInput {
  title: string;
  body?: string;
  reviewers: string[];
  importance?: Importance;
  expires_in_seconds?: number;
  metadata?: Record<string, unknown>;
}

/** The metadata is returned with the decision; at most 16 KB of JSON. */
export const MAX_METADATA_BYTES = 16 * 1024;
const DEFAULT_APPROVAL_SECONDS = 3600;

export function serializeApproval(row: ApprovalRequestRow, now: Date) {
  const status = approvalStatusAt(row, now);
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    id: row.id,
    status,
    agent: row.agent_key,
    title: row.title,
    body: row.body,
    reviewers: row.reviewers,
    importance: row.importance,
    metadata: row.metadata ?? {},
    expires_at: row.expires_at.toISOString(),
    decided_by: row.decided_by,
    decided_by_key_id: row.decided_by_key_id,
    comment: row.comment,
    // An expired request was decided by nobody, at its deadline.
    decided_at: status === "expired" ? row.expires_at.toISOString() : iso(row.decided_at),
    // What "Allow for this session" granted with an approval (docs/hooks.md), else null.
    session_grant: (row.session_grant ?? null) as SessionGrantView | null,
    created_at: row.created_at.toISOString(),
  };
}

interface SessionGrantView {
  session_id: string;
  rules: string[];
  expires_at: string;
}
export type ApprovalView = ReturnType<typeof serializeApproval>;

export async function createApprovalRequest(
  deps: ApprovalDeps,
  principal: Principal,
  given: ApprovalInput,
): Promise<ApprovalView> {
  assertMetadataFits(given.metadata ?? {});
  const input = await maskToolCallRequest(given);
  const metadata = input.metadata ?? {};
  assertMetadataFits(metadata); // a mask may be a little longer than what it hides
  const agent = principal.agentKey ? await findAgentRow(deps.prisma, principal.agentKey) : null;
  if (principal.agentKey) assertAgentMayName(principal.agentKey, agent, input.reviewers);
  const claimed = input.importance ?? "high";
  const jobs: BulkItem[] = [];
  const row = await $transaction(deps.prisma, async (tx) => {
    if (principal.agentKey) await assertAgentMayHold(tx, deps, principal.agentKey, { adding: 1 });
    const now = deps.now();
    const request = await insertApprovalRequest(tx, {
      id: newId("approval", now.getTime()),
      sender: senderOf(principal),
      agentKey: principal.agentKey,
      apiKeyId: principal.keyId,
      title: input.title,
      body: input.body ?? "",
      reviewers: [...new Set(input.reviewers)],
      importance: agent ? lowerImportance(claimed, agent.max_importance) : claimed,
      metadata,
      expiresAt: new Date(now.getTime() + (input.expires_in_seconds ?? DEFAULT_APPROVAL_SECONDS) * 1000),
      now,
    });
    const notices = await announceHeldItems(tx, deps, [
      {
        notice: {
          kind: "action",
          approval_id: request.id,
          agent: request.agent_key,
          agent_name: agent?.name ?? null,
          title: request.title,
          body: request.body,
          importance: request.importance,
          expires_at: request.expires_at,
        },
        reviewers: request.reviewers,
      },
    ]);
    if (notices.length > 0) jobs.push(ingestJobFor(notices));
    return request;
  });
  await enqueueAfterCommit(deps, { jobs });
  return serializeApproval(row, deps.now());
}

function assertMetadataFits(metadata: Record<string, unknown>): void {
  if (Buffer.byteLength(JSON.stringify(metadata), "utf8") > MAX_METADATA_BYTES) {
    throw validationError([
      {
        loc: ["body", "metadata"],
        msg: `must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
        type: "too_large",
      },
    ]);
  }
}

/**
 * A coding agent's tool call (`metadata.tool_call`, docs/hooks.md "Secrets never travel"): its
 * title, body and metadata pass the secret check before anything is stored, so no secret reaches
 * the record, the reviewers' notices, the review page or the callback. `svcctl hook --ask` masks
 * before sending too; this covers every other client.
 */
async function maskToolCallRequest(input: ApprovalInput): Promise<ApprovalInput> {
  if (toolCallOfMetadata(input.metadata) === null) return input;
  const [title, body, metadata] = await maskSecretsIn([
    input.title,
    input.body ?? "",
    input.metadata ?? {},
  ] as const);
  return { ...input, title, body, metadata };
}

/** An agent key names only its agent's reviewers (docs/agents.md "What an agent key may never do"). */
function assertAgentMayName(agentKey: string, agent: AgentRow | null, reviewers: readonly string[]): void {
  const allowed = new Set(agent?.reviewers ?? []);
  const others = reviewers.filter((reviewer) => !allowed.has(reviewer));
  if (others.length > 0) {
    throw new AppError(
      "forbidden",
      `agent '${agentKey}' may only ask its own reviewers; not among them: ${others.map((r) => `'${r}'`).join(", ")}`,
    );
  }
}

/** GET /v1/approvals/{id}: an agent key reads only its own requests. */
export async function getApprovalRequest(
  deps: EngineDeps,
  principal: Principal,
  id: string,
): Promise<ApprovalView> {
  return serializeApproval(await loadApprovalFor(deps, principal, id), deps.now());
}

/** The request as `principal` may read it: 404 when missing, 403 for an agent key reading another sender's. */
export async function loadApprovalFor(
  deps: Pick<EngineDeps, "prisma">,
  principal: Principal,
  id: string,
): Promise<ApprovalRequestRow> {
  const row = await findApprovalRequest(deps.prisma, id);
  if (!row) throw new AppError("not_found", `no approval request '${id}'`);
  if (principal.agentKey !== null && row.agent_key !== principal.agentKey)
    throw new AppError("forbidden", "agent keys may only read their own approval requests");
  return row;
}

export interface ListApprovalsQuery extends PageRequest {
  status?: ApprovalStatus;
  agent?: string;
}

export async function listApprovalRequestsFor(
  deps: EngineDeps,
  principal: Principal,
  query: ListApprovalsQuery,
): Promise<Page<ApprovalView>> {
  const window = pageWindow(query);
  const now = deps.now();
  const rows = await listApprovalRequests(
    deps.prisma,
    { status: query.status, agentKey: query.agent, onlyAgentKey: principal.agentKey },
    window,
    now,
  );
  return toPage(
    rows,
    window,
    (row) => row.id,
    (row) => serializeApproval(row, now),
  );
}
