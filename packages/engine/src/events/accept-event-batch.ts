import { AppError, hasScope, isAppError, newId, senderOf, type Principal } from "@svc/core";
import {
  findEventsByIdempotencyKeys,
  findRecipientsWithPolicyRows,
  insertAcceptedEventBatch,
  releaseEventIdempotencyKey,
  type EventWithOutcomes,
  type NewEvent,
} from "@svc/store";
import { assertAgentBelowHoldCap } from "../shared/pending-cap";
import type { RecipientProfileInput } from "../recipients/recipient-profile";
import { requestHash } from "../shared/canonical-json";
import {
  checkEventRequest,
  idempotencyConflict,
  inlineChangeRefusal,
  isIdempotencyExpired,
  type AcceptEventDeps,
} from "./accept-event";
import { commitEvents } from "./commit-events";
import { IDEMPOTENCY_RETENTION_MS, recipientExternalId, type EventInput } from "./event-input";
import { pendingEventView, serializeEvent, type EventView } from "./serialize-event";

// POST /v1/events/batch (docs/events.md "Many events in one request"): every item is decided as
// POST /v1/events would decide it alone, in order, but the batch costs a fixed number of
// statements: one INSERT for all new events, one read of the originals of repeated keys, one
// ingest enqueue. An item's refusal is its own result; only an outage fails the whole batch.

/** What POST /v1/events would have answered for one item: the event (202 new, 200 repeat) or an error. */
export type BatchItemResult =
  { ok: true; event: EventView; duplicate: boolean } | { ok: false; error: AppError };

export type AcceptEventBatchDeps = Omit<AcceptEventDeps, "eventBatcher">;

interface Candidate {
  index: number;
  input: EventInput;
  profile: RecipientProfileInput | null;
  key: string | null;
  hash: string | null;
  row?: NewEvent;
}

/**
 * Accepts the items in order; the results line up with `inputs`. Errors that concern one item
 * (validation, 403, 409, an agent at its cap of held items) become that item's result; anything
 * else (the database unreachable) is thrown for the whole batch.
 */
export async function acceptEventBatch(
  deps: AcceptEventBatchDeps,
  principal: Principal,
  inputs: readonly EventInput[],
): Promise<BatchItemResult[]> {
  const results: (BatchItemResult | undefined)[] = new Array(inputs.length);
  const refuse = (c: Pick<Candidate, "index">, error: AppError) => (results[c.index] = { ok: false, error });
  const sender = senderOf(principal);

  let candidates: Candidate[] = [];
  inputs.forEach((input, index) => {
    const profile = itemError(
      () => checkEventRequest(principal, input, deps.config),
      (error) => refuse({ index }, error),
    );
    if (profile === undefined) return;
    const key = input.idempotency_key ?? null;
    candidates.push({ index, input, profile, key, hash: key === null ? null : requestHash(input) });
  });

  // An agent at its cap of held items may send no event (docs/approvals.md); one count for all.
  if (principal.agentKey && candidates.length > 0) {
    const capped = await itemErrorAsync(() =>
      assertAgentBelowHoldCap(deps.prisma, deps, principal.agentKey!),
    );
    if (capped) {
      for (const c of candidates) refuse(c, capped);
      candidates = [];
    }
  }

  if (!hasScope(principal, "recipients:write")) {
    candidates = await checkInlineProfiles(deps, sender, candidates, results);
  }

  // A key repeated inside the batch: its first item is stored (or answered); later ones follow it.
  const firsts: Candidate[] = [];
  const repeats: Candidate[] = [];
  const seenKeys = new Set<string>();
  for (const c of candidates) {
    if (c.key !== null && seenKeys.has(c.key)) repeats.push(c);
    else {
      if (c.key !== null) seenKeys.add(c.key);
      firsts.push(c);
    }
  }

  const now = deps.now();
  for (const c of firsts) c.row = newEventRow(principal, sender, c, now);
  const storedByKey = await storeOrFindOriginals(deps, sender, firsts, results);

  for (const c of repeats) {
    const stored = storedByKey.get(c.key!);
    if (!stored) {
      // Its first item was refused for its content: so is this one.
      const first = firsts.find((f) => f.key === c.key)!;
      results[c.index] = results[first.index];
    } else if (stored.hash !== c.hash) refuse(c, idempotencyConflict(c.key!));
    else results[c.index] = { ok: true, event: stored.event, duplicate: true };
  }
  return results.map((r, i) => r ?? { ok: false, error: new AppError("internal", `item ${i} undecided`) });
}

/**
 * Items with an inline profile, sent without recipients:write: a replay is answered before the
 * stored person is compared (it may have changed since), then a change to a stored person is
 * refused (403). One read of originals and one of people for the whole batch.
 */
async function checkInlineProfiles(
  deps: AcceptEventBatchDeps,
  sender: string,
  candidates: Candidate[],
  results: (BatchItemResult | undefined)[],
): Promise<Candidate[]> {
  const guarded = candidates.filter((c) => c.profile !== null);
  if (guarded.length === 0) return candidates;
  const now = deps.now();
  const keys = guarded.flatMap((c) => (c.key === null ? [] : [c.key]));
  const originals = new Map(
    (await findEventsByIdempotencyKeys(deps.prisma, sender, keys))
      .filter((row) => !isIdempotencyExpired(row, now))
      .map((row) => [row.idempotency_key!, row]),
  );
  const answered = new Set<Candidate>();
  for (const c of guarded) {
    const original = c.key === null ? undefined : originals.get(c.key);
    if (!original) continue;
    answered.add(c);
    results[c.index] =
      original.request_hash === c.hash
        ? { ok: true, event: serializeEvent(original), duplicate: true }
        : { ok: false, error: idempotencyConflict(c.key!) };
  }
  const toCompare = guarded.filter((c) => !answered.has(c));
  const people = new Map(
    (
      await findRecipientsWithPolicyRows(
        deps.prisma,
        toCompare.map((c) => recipientExternalId(c.input.recipient)),
      )
    ).map((p) => [p.external_id, p]),
  );
  for (const c of toCompare) {
    const stored = people.get(recipientExternalId(c.input.recipient));
    const refused = stored ? inlineChangeRefusal(stored, c.profile!) : null;
    if (refused) {
      answered.add(c);
      results[c.index] = { ok: false, error: refused };
    }
  }
  return candidates.filter((c) => !answered.has(c));
}

interface StoredForKey {
  hash: string | null;
  event: EventView;
}

/**
 * One INSERT for the rows (a taken (sender, key) is skipped), then one read of the originals of
 * the skipped ones. A key past its retention is released and its row inserted again (a second
 * pass, as POST /v1/events does). Returns, per idempotency key, the event that now holds it.
 */
async function storeOrFindOriginals(
  deps: AcceptEventBatchDeps,
  sender: string,
  firsts: Candidate[],
  results: (BatchItemResult | undefined)[],
): Promise<Map<string, StoredForKey>> {
  const storedByKey = new Map<string, StoredForKey>();
  let todo = firsts;
  for (let pass = 0; pass < 2 && todo.length > 0; pass++) {
    const outcomes = await commitEvents(
      deps,
      todo.map((c) => c.row!),
      insertAcceptedEventBatch,
    );
    const taken: Candidate[] = [];
    todo.forEach((c, i) => {
      const outcome = outcomes[i]!;
      if ("error" in outcome) {
        if (!isAppError(outcome.error) || outcome.error.status >= 500) throw outcome.error;
        results[c.index] = { ok: false, error: outcome.error };
      } else if (outcome.stored) {
        const event = pendingEventView(c.row!);
        results[c.index] = { ok: true, event, duplicate: false };
        if (c.key !== null) storedByKey.set(c.key, { hash: c.hash, event });
      } else taken.push(c);
    });
    todo = await answerFromOriginals(deps, sender, taken, results, storedByKey);
  }
  for (const c of todo) {
    results[c.index] = {
      ok: false,
      error: new AppError(
        "unavailable",
        `idempotency_key '${c.key}' is being released by a concurrent request; retry the item`,
      ),
    };
  }
  return storedByKey;
}

/** Answers items whose key was taken from the stored originals; returns those to insert again. */
async function answerFromOriginals(
  deps: AcceptEventBatchDeps,
  sender: string,
  taken: Candidate[],
  results: (BatchItemResult | undefined)[],
  storedByKey: Map<string, StoredForKey>,
): Promise<Candidate[]> {
  if (taken.length === 0) return [];
  const now = deps.now();
  const rows = await findEventsByIdempotencyKeys(
    deps.prisma,
    sender,
    taken.map((c) => c.key!),
  );
  const byKey = new Map<string, EventWithOutcomes>(rows.map((row) => [row.idempotency_key!, row]));
  const again: Candidate[] = [];
  for (const c of taken) {
    const row = byKey.get(c.key!);
    if (!row || isIdempotencyExpired(row, now)) {
      if (row) await releaseEventIdempotencyKey(deps.prisma, row.id, now);
      c.row = { ...c.row!, id: newId("event") };
      again.push(c);
      continue;
    }
    const event = serializeEvent(row);
    storedByKey.set(c.key!, { hash: row.request_hash, event });
    results[c.index] =
      row.request_hash === c.hash
        ? { ok: true, event, duplicate: true }
        : { ok: false, error: idempotencyConflict(c.key!) };
  }
  return again;
}

function newEventRow(principal: Principal, sender: string, c: Candidate, now: Date): NewEvent {
  return {
    id: newId("event"),
    name: c.input.name,
    sender,
    agent_key: principal.agentKey,
    api_key_id: principal.keyId,
    idempotency_key: c.key,
    request_hash: c.hash,
    idempotency_expires_at: c.key === null ? null : new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    recipient_external_id: recipientExternalId(c.input.recipient),
    recipient_profile: c.profile,
    data: c.input.data ?? {},
    created_at: now,
  };
}

/** Runs a per-item check: an AppError (4xx) is the item's; anything else concerns the whole batch. */
function itemError<T>(check: () => T, onError: (error: AppError) => void): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!isAppError(error) || error.status >= 500) throw error;
    onError(error);
    return undefined;
  }
}

async function itemErrorAsync(check: () => Promise<void>): Promise<AppError | null> {
  try {
    await check();
    return null;
  } catch (error) {
    if (!isAppError(error) || error.status >= 500) throw error;
    return error;
  }
}
