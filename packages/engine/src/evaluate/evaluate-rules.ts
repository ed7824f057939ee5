import {
  AppError,
  newId,
  senderOf,
  validateEventName,
  type EventRuleOutcome,
  type Principal,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  findEventByIdempotencyKey,
  findRecipientId,
  readOnlyTransaction,
  type RootDatabase,
} from "@svc/store";
import { assertExternalId, isReservedEventName } from "../events/event-input";
import { decideEvent, type DecidableEvent } from "../ingest/decide-event";
import { directReads } from "../ingest/ingest-reads";
import { validationError } from "../shared/validation";

/** Body of POST /v1/rules/evaluate. */
export interface EvaluateInput {
  name: string;
  recipient: string;
  data?: Record<string, unknown>;
  idempotency_key?: string;
}

export interface EvaluateResult {
  name: string;
  recipient: string;
  dry_run: true;
  outcome: EventRuleOutcome[];
}

/**
 * Dry run of an event (docs/events.md, "The dry run"): the outcome each rule would give, decided by
 * the same matching and policy as ingest, without writing anything (the transaction is READ ONLY,
 * so Postgres itself refuses a write). A digest rule reports `digested` without grouping; a rule
 * whose message this sender's event with `idempotency_key` already produced reports `duplicate`.
 */
export async function evaluateRules(
  deps: { prisma: RootDatabase; config: SvcConfig; now: () => Date },
  principal: Principal,
  input: EvaluateInput,
): Promise<EvaluateResult> {
  const name = validateEventName(input.name);
  if (!name.ok)
    throw validationError([
      { loc: ["body", "name"], msg: name.detail ?? "invalid event name", type: "value_error" },
    ]);
  // What POST /v1/events would refuse, the dry run refuses alike (and Postgres never sees it; a
  // NUL anywhere in the body is refused by the API before this runs).
  assertExternalId(input.recipient, ["body", "recipient"]);
  const { prisma } = deps;
  if ((await findRecipientId(prisma, input.recipient)) === null)
    throw new AppError("not_found", `no recipient '${input.recipient}'`);
  const sender = senderOf(principal);
  const original = input.idempotency_key
    ? await findEventByIdempotencyKey(prisma, sender, input.idempotency_key)
    : null;

  const now = deps.now();
  // Never stored: conditions and templates see an event id shaped like a real one.
  const event = {
    id: newId("event", now.getTime()),
    name: input.name,
    created_at: now,
    data: (input.data ?? {}) as DecidableEvent["data"],
    sender,
    agent_key: principal.agentKey,
    api_key_id: principal.keyId,
    recipient_external_id: input.recipient,
    recipient_profile: null,
    // An admin may try the service's own events too (exact-name rules see them, wildcards do not).
    source: isReservedEventName(input.name) ? ("svc" as const) : ("api" as const),
  };

  // The same decision as ingest (ingest/decide-event.ts), read plainly and written nowhere: the
  // transaction is READ ONLY, so Postgres itself refuses a write.
  const outcome = await readOnlyTransaction(prisma, async (tx) => {
    const decision = await decideEvent(
      tx,
      { prisma, config: deps.config, now: deps.now },
      directReads(tx),
      event,
      now,
      {
        dryRun: true,
        dedupEventId: original?.id,
      },
    );
    return decision.outcomes;
  });
  return { name: input.name, recipient: input.recipient, dry_run: true, outcome };
}
