import { AppError, hasScope, newId, senderOf, validateEventName, type Principal } from "@svc/core";
import type { Queues } from "@svc/queue";
import { Prisma, isUniqueViolation, type PrismaClient } from "@svc/store";
import { checkProfile, type RecipientProfileInput } from "../recipients/recipient-profile";
import { validationError } from "../shared/validation";
import { requestHash } from "../shared/canonical-json";
import {
  IDEMPOTENCY_RETENTION_MS,
  inlineProfileOf,
  isReservedEventName,
  isValidExternalId,
  recipientExternalId,
  type EventInput,
} from "./event-input";
import { profileChanges } from "./inline-profile";
import { serializeEvent, type EventView, type EventWithOutcomes } from "./serialize-event";

export interface AcceptEventDeps {
  prisma: PrismaClient;
  queues: Pick<Queues, "enqueue">;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
  now: () => Date;
}

export interface AcceptedEvent {
  event: EventView;
  /** True when the idempotency key matched an earlier identical request (200, not 202). */
  duplicate: boolean;
}

/**
 * POST /v1/events (SPEC 2.3, ARCHITECTURE "How data flows" 1): checks the caller may send it,
 * stores the event `pending` (idempotent per sender and key) and hands it to the ingest queue.
 * A lost enqueue is not an error: the pending-events sweep re-enqueues it.
 */
export async function acceptEvent(
  deps: AcceptEventDeps,
  principal: Principal,
  input: EventInput,
): Promise<AcceptedEvent> {
  const profile = checkRequest(principal, input);
  const { prisma } = deps;
  const sender = senderOf(principal);
  const externalId = recipientExternalId(input.recipient);
  const hash = requestHash(input);
  const key = input.idempotency_key ?? null;

  if (key !== null) {
    const original = await findOriginal(prisma, sender, key, hash, deps.now());
    if (original) return { event: serializeEvent(original), duplicate: true };
  }
  if (profile && !hasScope(principal, "recipients:write")) await assertProfileUnchanged(prisma, externalId, profile);

  const now = deps.now();
  const id = newId("event");
  // A racing twin or a key whose retention just ran out may take a second pass.
  for (let pass = 0; ; pass++) {
    try {
      const row = await prisma.event.create({
        data: {
          id,
          name: input.name,
          source: "api",
          sender,
          agent_key: principal.agentKey,
          api_key_id: principal.keyId,
          idempotency_key: key,
          request_hash: key === null ? null : hash,
          idempotency_expires_at: key === null ? null : new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
          recipient_external_id: externalId,
          recipient_profile: profile ? (profile as Prisma.InputJsonValue) : Prisma.DbNull,
          data: (input.data ?? {}) as Prisma.InputJsonValue,
          status: "pending",
          created_at: now,
        },
      });
      await enqueueIngest(deps, id);
      return { event: serializeEvent({ ...row, outcomes: [] }), duplicate: false };
    } catch (error) {
      if (key === null || pass > 0 || !isUniqueViolation(error)) throw error;
      const original = await findOriginal(prisma, sender, key, hash, deps.now());
      if (original) return { event: serializeEvent(original), duplicate: true };
    }
  }
}

/** Checks that need no database; returns the inline profile (null for a plain external id). */
function checkRequest(principal: Principal, input: EventInput): RecipientProfileInput | null {
  const name = validateEventName(input.name);
  if (!name.ok) throw validationError([{ loc: ["body", "name"], msg: name.detail ?? "invalid event name", type: "value_error" }]);
  if (isReservedEventName(input.name)) {
    throw new AppError("forbidden", "event names starting 'svc.' are reserved for the service");
  }
  const profile = inlineProfileOf(input.recipient);
  const idLoc = profile ? ["body", "recipient", "external_id"] : ["body", "recipient"];
  if (!isValidExternalId(recipientExternalId(input.recipient))) {
    throw validationError([{ loc: idLoc, msg: "external id must be 1-255 characters without control characters", type: "value_error" }]);
  }
  if (profile === null) return null;
  if (principal.agentKey) {
    throw new AppError("forbidden", "agent keys refer to people by external id; inline recipient profiles are refused");
  }
  checkProfile(profile, ["body", "recipient"]);
  return profile;
}

/**
 * The event stored earlier under (sender, key): the original when the body matches, 409 when it
 * does not. A key past its 7-day retention is released (and null returned) so it can be reused.
 */
async function findOriginal(
  prisma: PrismaClient,
  sender: string,
  key: string,
  hash: string,
  now: Date,
): Promise<EventWithOutcomes | null> {
  const row = await prisma.event.findUnique({
    where: { sender_idempotency_key: { sender, idempotency_key: key } },
    include: { outcomes: true },
  });
  if (!row) return null;
  if (row.idempotency_expires_at && row.idempotency_expires_at.getTime() <= now.getTime()) {
    await prisma.event.updateMany({
      where: { id: row.id, idempotency_expires_at: { lte: now } },
      data: { idempotency_key: null, idempotency_expires_at: null },
    });
    return null;
  }
  if (row.request_hash !== hash) {
    throw new AppError("conflict", `idempotency_key '${key}' was already used with a different request body`);
  }
  return row;
}

// SPEC 2.3: changing a stored profile inline needs recipients:write; creating one does not.
async function assertProfileUnchanged(prisma: PrismaClient, externalId: string, profile: RecipientProfileInput) {
  const stored = await prisma.recipient.findUnique({ where: { external_id: externalId }, include: { addresses: true } });
  if (!stored) return;
  const changed = profileChanges(stored, profile);
  if (changed.length > 0) {
    throw new AppError(
      "forbidden",
      `the inline profile would change the stored recipient (${changed.join(", ")}); that needs the scope 'recipients:write'`,
    );
  }
}

async function enqueueIngest(deps: AcceptEventDeps, eventId: string): Promise<void> {
  try {
    await deps.queues.enqueue("ingest-event", { eventId });
  } catch (error) {
    deps.logger.warn("event stored but not enqueued; the pending-events sweep will enqueue it", {
      event_id: eventId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
