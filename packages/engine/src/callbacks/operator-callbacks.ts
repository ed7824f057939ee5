import { AppError } from "@svc/core";
import {
  findCallbackDelivery,
  findCallbackPage,
  reopenFailedCallback,
  type CallbackDeliveryRow,
  type CallbackStatus,
  type RootDatabase,
} from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { enqueueTry, type SendCallbackDeps } from "./send-callback";

// What operators see of the decision callbacks and how they retry a failed one
// (docs/approvals.md "Failed callbacks"): `GET /v1/callbacks`, `POST /v1/callbacks/{id}/retry`,
// `svcctl callbacks list|retry`.

export interface CallbackView {
  id: string;
  /** `approval.decided` */
  kind: string;
  /** The decided approval request or held message. */
  subject_id: string;
  status: CallbackStatus;
  /** Tries made so far. */
  attempts: number;
  /** The error of the latest failed try (kept after a later success or an operator's retry). */
  last_error: string | null;
  /** When the next try is due (pending only). */
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  /** The JSON POSTed. */
  body: unknown;
}

export interface ListCallbacksQuery extends PageRequest {
  status?: CallbackStatus;
}

function serializeCallback(row: CallbackDeliveryRow): CallbackView {
  return {
    id: row.id,
    kind: row.kind,
    subject_id: row.subject_id,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.status === "pending" ? (row.next_attempt_at?.toISOString() ?? null) : null,
    created_at: row.created_at.toISOString(),
    delivered_at: row.delivered_at?.toISOString() ?? null,
    body: row.body,
  };
}

/** Newest first, optionally of one status. */
export async function listCallbacks(
  { prisma }: { prisma: RootDatabase },
  query: ListCallbacksQuery,
): Promise<Page<CallbackView>> {
  const window = pageWindow(query);
  const rows = await findCallbackPage(prisma, { status: query.status }, window);
  return toPage(rows, window, (row) => row.id, serializeCallback);
}

export type RetryCallbackDeps = Pick<SendCallbackDeps, "prisma" | "queues" | "logger" | "now">;

/**
 * A `failed` callback goes back to `pending` with no attempts and a try due now (a new job, so
 * the day of retries starts over). Anything else is 409 `Invalid state`; an unknown id is 404.
 */
export async function retryCallback(deps: RetryCallbackDeps, id: string): Promise<CallbackView> {
  const reopened = await reopenFailedCallback(deps.prisma, id, deps.now());
  if (!reopened) {
    const row = await findCallbackDelivery(deps.prisma, id);
    if (!row) throw new AppError("not_found", `no callback '${id}'`);
    throw new AppError("invalid_state", `callback is ${row.status}; only failed callbacks can be retried`);
  }
  await enqueueTry(deps, reopened.id, reopened.next_attempt_at!);
  return serializeCallback(reopened);
}
