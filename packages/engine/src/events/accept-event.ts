import { AppError, hasScope, newId, senderOf, validateEventName, type Principal } from "@svc/core";
import {
  findEventByIdempotencyKey,
  findRecipientWithPolicyRows,
  releaseEventIdempotencyKey,
  type EventWithOutcomes,
  type NewEvent,
  type RootDatabase,
} from "@svc/store";
import type { AddressConfig } from "../recipients/address-check";
import { checkProfile, type RecipientProfileInput } from "../recipients/recipient-profile";
import { validationError } from "../shared/validation";
import { requestHash } from "../shared/canonical-json";
import {
  IDEMPOTENCY_RETENTION_MS,
  inlineProfileOf,
  isReservedEventName,
  assertExternalId,
  recipientExternalId,
  type EventInput,
} from "./event-input";
import type { SvcConfig } from "@svc/config";
import { assertAgentBelowHoldCap } from "../shared/pending-cap";
import { profileChanges } from "./inline-profile";
import { commitEvents, type CommitEventsDeps } from "./commit-events";
import type { EventBatcher } from "./event-batcher";
import { pendingEventView, serializeEvent, type EventView } from "./serialize-event";

export interface AcceptEventDeps extends CommitEventsDeps {
  now: () => Date;
  /** approvals.max_pending_per_agent: an agent at its cap of held items is refused (429). */
  config: Pick<SvcConfig, "approvals" | "channels" | "compliance">;
  /** Groups concurrent accepts into one INSERT and one bulk enqueue; without it each commits alone. */
  eventBatcher?: EventBatcher;
}

export interface AcceptedEvent {
  event: EventView;
  /** True when the idempotency key matched an earlier identical request (200, not 202). */
  duplicate: boolean;
}

/**
 * POST /v1/events (docs/events.md, docs/architecture.md "Data"): checks the caller may send it,
 * stores the event `pending` (idempotent per sender and key) and hands it to the ingest queue.
 * A lost enqueue is not an error: the pending-events sweep re-enqueues it.
 */
export async function acceptEvent(
  deps: AcceptEventDeps,
  principal: Principal,
  input: EventInput,
): Promise<AcceptedEvent> {
  const profile = checkEventRequest(principal, input, deps.config);
  const { prisma } = deps;
  const sender = senderOf(principal);
  const externalId = recipientExternalId(input.recipient);
  const key = input.idempotency_key ?? null;
  const hash = key === null ? null : requestHash(input);
  const guardStoredProfile = profile !== null && !hasScope(principal, "recipients:write");

  // A replay answers with the original before the stored person is compared (it may have changed since).
  if (key !== null && guardStoredProfile) {
    const original = await findOriginal(prisma, sender, key, hash!, deps.now());
    if (original) return { event: serializeEvent(original), duplicate: true };
  }
  if (guardStoredProfile) await assertProfileUnchanged(prisma, externalId, profile);
  // Any event of an agent may hold a message: at its cap of held items it must wait (docs/approvals.md).
  if (principal.agentKey) await assertAgentBelowHoldCap(prisma, deps, principal.agentKey);

  const now = deps.now();
  const row: NewEvent = {
    id: newId("event"),
    name: input.name,
    sender,
    agent_key: principal.agentKey,
    api_key_id: principal.keyId,
    idempotency_key: key,
    request_hash: hash,
    idempotency_expires_at: key === null ? null : new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    recipient_external_id: externalId,
    recipient_profile: profile,
    data: input.data ?? {},
    created_at: now,
  };
  // Insert first: a taken (sender, key) is then looked up. A key whose retention just ran out is
  // released by that lookup and the insert takes a second pass.
  for (let pass = 0; pass < 2; pass++) {
    const outcome = deps.eventBatcher
      ? await deps.eventBatcher.commit(row)
      : (await commitEvents(deps, [row]))[0]!;
    if ("error" in outcome) throw outcome.error;
    if (outcome.stored) return { event: pendingEventView(row), duplicate: false };
    const original = key === null ? null : await findOriginal(prisma, sender, key, hash!, deps.now());
    if (original) return { event: serializeEvent(original), duplicate: true };
  }
  throw new AppError(
    "unavailable",
    `idempotency_key '${key}' is being released by a concurrent request; retry the request`,
  );
}

/** Checks that need no database; returns the inline profile (null for a plain external id). */
export function checkEventRequest(
  principal: Principal,
  input: EventInput,
  config: AddressConfig,
): RecipientProfileInput | null {
  const name = validateEventName(input.name);
  if (!name.ok)
    throw validationError([
      { loc: ["body", "name"], msg: name.detail ?? "invalid event name", type: "value_error" },
    ]);
  if (isReservedEventName(input.name)) {
    throw new AppError("forbidden", "event names starting 'svc.' are reserved for the service");
  }
  const profile = inlineProfileOf(input.recipient);
  const idLoc = profile ? ["body", "recipient", "external_id"] : ["body", "recipient"];
  assertExternalId(recipientExternalId(input.recipient), idLoc);
  if (profile === null) return null;
  if (principal.agentKey) {
    throw new AppError(
      "forbidden",
      "agent keys refer to people by external id; inline recipient profiles are refused",
    );
  }
  checkProfile(profile, ["body", "recipient"], config);
  return profile;
}

/**
 * The event stored earlier under (sender, key): the original when the body matches, 409 when it
 * does not. A key past its 7-day retention is released (and null returned) so it can be reused.
 */
async function findOriginal(
  prisma: RootDatabase,
  sender: string,
  key: string,
  hash: string,
  now: Date,
): Promise<EventWithOutcomes | null> {
  const row = await findEventByIdempotencyKey(prisma, sender, key);
  if (!row) return null;
  if (isIdempotencyExpired(row, now)) {
    await releaseEventIdempotencyKey(prisma, row.id, now);
    return null;
  }
  if (row.request_hash !== hash) throw idempotencyConflict(key);
  return row;
}

/** The stored event's key is past its 7-day retention: it may be released and reused. */
export function isIdempotencyExpired(
  row: Pick<EventWithOutcomes, "idempotency_expires_at">,
  now: Date,
): boolean {
  return row.idempotency_expires_at !== null && row.idempotency_expires_at.getTime() <= now.getTime();
}

export function idempotencyConflict(key: string): AppError {
  return new AppError("conflict", `idempotency_key '${key}' was already used with a different request body`);
}

// Changing a stored profile inline needs recipients:write; creating one does not (docs/events.md).
async function assertProfileUnchanged(
  prisma: RootDatabase,
  externalId: string,
  profile: RecipientProfileInput,
) {
  const stored = await findRecipientWithPolicyRows(prisma, { external_id: externalId });
  const refused = stored ? inlineChangeRefusal(stored, profile) : null;
  if (refused) throw refused;
}

/** 403 when the inline profile would change the stored person (the caller lacks recipients:write). */
export function inlineChangeRefusal(
  stored: Parameters<typeof profileChanges>[0],
  profile: RecipientProfileInput,
): AppError | null {
  const changed = profileChanges(stored, profile);
  if (changed.length === 0) return null;
  return new AppError(
    "forbidden",
    `the inline profile would change the stored recipient (${changed.join(", ")}); that needs the scope 'recipients:write'`,
  );
}
