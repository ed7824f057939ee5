import { AppError, senderOf, type Importance, type Principal } from "@svc/core";
import type { Queues } from "@svc/queue";
import { findAgentRow, type MessageRow } from "@svc/store";
import { ComposeReferenceError } from "../compose/compose-errors";
import type { EngineDeps } from "../deps";
import { validationError } from "../shared/validation";
import { ingestJobFor } from "../events/commit-events";
import type { ComposeRequest } from "../compose/compose-types";
import { recordFinalRows } from "../metrics/record-metrics";
import { decideAlone, decideDirectSend, type DirectSendResult } from "./direct-send-batcher";
import { readReferences, recipientIdOrRefusal } from "./send-references";
import { loadMessageFor } from "../shared/load-message";
import { requestHash } from "../shared/canonical-json";
import { serializeMessage, type MessageView } from "../shared/serialize-message";

/** Direct-send body (docs/messages.md, "Direct sends"); the OpenAPI document validated its shape. */
export interface SendMessageInput {
  recipient: string;
  template: string;
  category: string;
  channels: string[];
  data?: Record<string, unknown>;
  importance?: Importance;
  expires_at?: string | null;
  idempotency_key?: string | null;
}

export type SendMessageDeps = EngineDeps & { queues: Pick<Queues, "enqueue" | "enqueueBulk"> };

/**
 * POST /v1/messages: decided in this process under the recipient's lock (so the answer carries
 * the status; concurrent sends share a transaction, direct-send-batcher.ts), then, after commit,
 * the delivery job is enqueued for send_at. `created` is false
 * for an idempotent repeat (200 with the original).
 */
export async function sendMessage(
  deps: SendMessageDeps,
  principal: Principal,
  input: SendMessageInput,
): Promise<{ created: boolean; message: MessageView }> {
  const body = normalise(input);
  const requestFor = (recipientId: string): ComposeRequest => ({
    recipientId,
    template: input.template,
    category: input.category,
    channels: input.channels,
    importance: body.importance,
    data: body.data,
    sender: senderOf(principal),
    agentKey: principal.agentKey,
    apiKeyId: principal.keyId,
    rule: null,
    event: null,
    dedupKey: null,
    idempotencyKey: input.idempotency_key ?? null,
    requestHash: requestHash(body),
    expiresAt: body.expires_at ? new Date(body.expires_at) : null,
  });
  const { composed: result, enqueued } = await decide(deps, principal, input, requestFor).catch(
    (error: unknown) => {
      // Deleted between the check above and the lock.
      if (error instanceof ComposeReferenceError) throw referenceGone(error);
      throw error;
    },
  );
  // Suppressed or failed by the policy as it was written (a repeat was counted the first time).
  if (!result.duplicate) recordFinalRows([result.message]);
  // A repeat enqueues again too: the job id is stable, so this only repairs a lost enqueue.
  if (!enqueued) {
    await enqueueDelivery(deps, result.message);
    await enqueueNotices(deps, result.notices);
  }
  const message = result.duplicate
    ? serializeMessage(await loadMessageFor(deps.prisma, principal, result.message.id))
    : serializeMessage(result.message);
  return { created: !result.duplicate, message };
}

async function assertAgentMayUse(
  deps: SendMessageDeps,
  principal: Principal,
  category: string,
): Promise<void> {
  if (!principal.agentKey) return;
  const agent = await findAgentRow(deps.prisma, principal.agentKey);
  const allowed = agent?.categories as string[] | null | undefined;
  if (!agent || (allowed && !allowed.includes(category))) {
    throw new AppError("forbidden", `agent '${principal.agentKey}' may not send in category '${category}'`);
  }
}

// Sends of an agent and idempotent ones decide alone (direct-send-batcher.ts); the others join
// the sends that arrive with them.
async function decide(
  deps: SendMessageDeps,
  principal: Principal,
  input: SendMessageInput,
  requestFor: (recipientId: string) => ComposeRequest,
): Promise<DirectSendResult> {
  if (!principal.agentKey && !input.idempotency_key)
    return decideDirectSend(deps, { references: input, requestFor });
  await assertAgentMayUse(deps, principal, input.category);
  const recipientId = recipientIdOrRefusal(input, await readReferences(deps.prisma, [input]));
  return { composed: await decideAlone(deps, requestFor(recipientId)), enqueued: false };
}

function referenceGone(error: ComposeReferenceError): AppError {
  return validationError([
    { loc: ["body", error.reference], msg: `no ${error.reference} '${error.key}'`, type: "not_found" },
  ]);
}

// Defaults filled in and the time normalised, so an omitted default and an explicit one are the same body.
function normalise(input: SendMessageInput) {
  return {
    recipient: input.recipient,
    template: input.template,
    category: input.category,
    channels: input.channels,
    data: input.data ?? {},
    importance: input.importance ?? ("normal" as Importance),
    expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
    idempotency_key: input.idempotency_key ?? null,
  };
}

// After commit: a held message's notices (svc.approval_requested events) go to ingest; a lost
// enqueue leaves them `pending`, which the pending-events sweep re-enqueues.
async function enqueueNotices(deps: SendMessageDeps, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  try {
    await deps.queues.enqueueBulk([ingestJobFor(eventIds)]);
  } catch (error) {
    deps.logger.warn("notice enqueue failed; the pending-events sweep will pick them up", {
      events: eventIds.length,
      error: (error as Error).message,
    });
  }
}

// After commit: a lost enqueue leaves a due `queued` row, which the delivery sweep re-enqueues.
async function enqueueDelivery(deps: SendMessageDeps, message: MessageRow): Promise<void> {
  if (message.status !== "queued") return;
  try {
    await deps.queues.enqueue(
      "deliver-message",
      { messageId: message.id, generation: message.generation },
      { sendAt: message.send_at },
    );
  } catch (error) {
    deps.logger.warn("delivery enqueue failed; the sweep will pick the message up", {
      message_id: message.id,
      error: (error as Error).message,
    });
  }
}
