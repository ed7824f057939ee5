import type { SvcConfig } from "@svc/config";
import { decideScreening, type ScreeningDecision, type ScreeningEvidence } from "@svc/core";
import type { BulkItem, JobPayload, Queues } from "@svc/queue";
import {
  $transaction,
  bumpMessageGeneration,
  claimForScreening,
  claimWaitingForScreening,
  findAgentRow,
  holdScreenedMessage,
  releaseScreenedMessages,
  type AgentRow,
  type MessageRow,
  type RootDatabase,
  type ScreenedRelease,
} from "@svc/store";
import { emitWebhookEvents, messageStatusEmissions } from "../outbox/emit";
import { enqueueAfterCommit } from "../shared/after-commit";
import { announceHeldItems, heldMessageNotice } from "../shared/review-notices";
import { deliveryJobsFor } from "../delivery/delivery-jobs";
import { planRetry } from "../delivery/delivery-run";
import type { DeliveryLogger } from "../shared/delivery-types";
import { ingestJobFor } from "../events/commit-events";
import type { ScreeningModel } from "./models";
import { needsScreening, SCREENING_BATCH } from "./screening-handoff";
import { renderedTexts, screeningInputOf } from "./screening-input";
import { findSecrets } from "./secret-check";
import type { DeliverHere } from "../shared/hand-off";

// The screening job (docs/screening.md "How it runs"): claim the waiting messages, run the secret
// check, ask the model, let svc's own decision (packages/core: decideScreening) choose, and store
// the verdict with the outcome in one write: held (reviewers told in the same transaction) or
// queued again for delivery. A failing model is asked again later, backing off per `worker.*`.

export interface ScreeningDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "screening" | "worker" | "api" | "secrets">;
  queues: Pick<Queues, "enqueueBulk">;
  /** This process's own delivery, for the messages screening passes (shared/hand-off.ts). */
  deliverHere?: DeliverHere | undefined;
  logger: DeliveryLogger;
  now: () => Date;
  model: ScreeningModel;
  /** Base of the retry backoff (doubles per retry, 50 % jitter); tests use a few milliseconds. */
  retryBaseMs: number;
  random?: () => number;
}

/** What became of one message. */
export type ScreeningResult =
  | { status: "skipped"; reason: string }
  | { status: "held"; reason: string }
  | { status: "queued"; outcome: string | null }
  | { status: "retry"; at: Date };

/** Covers one model call (bounded by `screening.timeout_ms`) and the writes around it. */
const SCREENING_LEASE_MARGIN_MS = 30_000;

type Request = JobPayload<"screen-message">;

export async function screenMessages(
  deps: ScreeningDeps,
  requests: readonly Request[],
): Promise<ScreeningResult[]> {
  const now = deps.now();
  const leaseUntil = new Date(now.getTime() + deps.config.screening.timeout_ms + SCREENING_LEASE_MARGIN_MS);
  const rows = await claimForScreening(deps.prisma, requests, now, leaseUntil);
  // Room left in this batch goes to other waiting messages (docs/screening.md "How it runs").
  const room = SCREENING_BATCH - rows.filter((row) => row !== null).length;
  const extra = room > 0 ? await claimWaitingForScreening(deps.prisma, now, leaseUntil, room) : [];
  const claimed = [...rows.filter((row): row is MessageRow => row !== null), ...extra];
  const [agents, secrets] = await Promise.all([
    agentsOf(deps.prisma, claimed),
    // One scan for the whole batch: the secret check's set-up costs far more than the text.
    findSecrets(claimed.map((row) => renderedTexts(row))),
  ]);
  const secretOf = new Map(claimed.map((row, i) => [row.id, secrets[i] ?? null]));
  const after: BulkItem[] = [];
  const screen = (row: MessageRow, request: Request) =>
    screenOne(
      deps,
      row,
      agents.get(row.agent_key ?? "") ?? null,
      secretOf.get(row.id) ?? null,
      request,
      after,
    );
  const [own, others] = await Promise.all([
    Promise.all(
      requests.map(async (request, i): Promise<Screened> => {
        const row = rows[i];
        if (!row) return { status: "skipped", reason: "not waiting for screening" };
        return screen(row, request);
      }),
    ),
    Promise.all(extra.map((row) => screen(row, { messageId: row.id, generation: row.generation }))),
  ]);
  // Every release of the job in one statement; the released go on to delivery.
  const releases = [...own, ...others].flatMap((s) => (s.status === "release" ? [s.release] : []));
  const released = await releaseScreenedMessages(deps.prisma, releases, deps.now());
  const releasedIds = new Set(released.map((r) => r.messageId));
  after.push(...deliveryJobsFor(released));
  await enqueueAfterCommit(deps, { jobs: after });
  return own.map((s) => {
    if (s.status !== "release") return s;
    return releasedIds.has(s.release.messageId)
      ? { status: "queued", outcome: s.outcome }
      : { status: "skipped", reason: "moved on" };
  });
}

/** A result, or a release the job writes together with the others. */
type Screened = ScreeningResult | { status: "release"; release: ScreenedRelease; outcome: string | null };

async function screenOne(
  deps: ScreeningDeps,
  row: MessageRow,
  agent: AgentRow | null,
  secretRule: string | null,
  request: Request,
  after: BulkItem[],
): Promise<Screened> {
  const where = { messageId: row.id, generation: row.generation };
  // Switched off meanwhile, or nothing to screen: back to delivery as it is, without a verdict.
  if (!deps.config.screening.enabled || !needsScreening(row)) {
    return {
      status: "release",
      release: { ...where, importance: row.importance, verdict: null },
      outcome: null,
    };
  }

  const evidence = await gatherEvidence(deps, row, agent, secretRule, request);
  if (evidence.kind === "retry") return evidence.result;
  const decision = decideScreening(row.importance, evidence, deps.config.screening);
  deps.logger.info("message screened", {
    message_id: row.id,
    outcome: decision.verdict.outcome,
    ...(decision.action === "hold" ? { status_reason: decision.reason } : {}),
  });
  if (decision.action === "hold") return hold(deps, row, agent, decision, after);
  return {
    status: "release",
    release: { ...where, importance: decision.importance, verdict: decision.verdict },
    outcome: decision.verdict.outcome,
  };
}

type Evidence = ScreeningEvidence | { kind: "retry"; result: ScreeningResult };

async function gatherEvidence(
  deps: ScreeningDeps,
  row: MessageRow,
  agent: AgentRow | null,
  secretRule: string | null,
  request: Request,
): Promise<Evidence> {
  if (secretRule !== null) return { kind: "secret", rule: secretRule };
  const reply = await deps.model.ask(screeningInputOf(row, agent));
  if (reply.ok) return { kind: "answer", model: reply.model, answer: reply.answer };
  const unavailable: ScreeningEvidence = {
    kind: "unavailable",
    model: deps.config.screening.model,
    error: reply.error,
  };
  if (!reply.retryable) return unavailable;

  const now = deps.now();
  const firstAttemptAt = request.firstAttemptAt ? new Date(request.firstAttemptAt) : now;
  const retries = (request.retries ?? 0) + 1;
  const plan = planRetry({
    now,
    retries,
    firstAttemptAt,
    retryAfterMs: reply.retryAfterMs,
    baseMs: deps.retryBaseMs,
    maxAttempts: deps.config.worker.max_attempts,
    maxDeferSeconds: deps.config.worker.max_defer_seconds,
    random: (deps.random ?? Math.random)(),
  });
  if (plan.kind === "give_up") return unavailable;
  deps.logger.warn("screening model unavailable, will ask again", {
    message_id: row.id,
    error: reply.error,
    retries,
    retry_at: plan.at.toISOString(),
  });
  // Parked like a delivery retry: the lease runs until the retry, under the next generation; if
  // the delayed job is lost, the reclaim-leases sweep brings the message back through delivery.
  const parked = await bumpMessageGeneration(
    deps.prisma,
    { id: row.id, generation: row.generation, status: "sending" },
    { leaseUntil: plan.at, now },
  );
  if (!parked) return { kind: "retry", result: { status: "skipped", reason: "moved on" } };
  await enqueueAfterCommit(deps, {
    jobs: [
      {
        name: "screen-message",
        payload: {
          messageId: row.id,
          generation: parked.generation,
          retries,
          firstAttemptAt: firstAttemptAt.toISOString(),
        },
        opts: { sendAt: plan.at },
      },
    ],
  });
  return { kind: "retry", result: { status: "retry", at: plan.at } };
}

async function hold(
  deps: ScreeningDeps,
  row: MessageRow,
  agent: AgentRow | null,
  decision: Extract<ScreeningDecision, { action: "hold" }>,
  after: BulkItem[],
): Promise<ScreeningResult> {
  const now = deps.now();
  // The approval TTL applies as to any held message (docs/approvals.md "Held messages").
  const ttlSeconds = agent?.approval_ttl_seconds ?? 86_400;
  const notices = await $transaction(deps.prisma, async (tx) => {
    const held = await holdScreenedMessage(
      tx,
      { messageId: row.id, generation: row.generation },
      {
        reason: decision.reason,
        verdict: decision.verdict,
        approvalExpiresAt: new Date(now.getTime() + ttlSeconds * 1000),
        now,
      },
    );
    if (!held) return null;
    await emitWebhookEvents(tx, messageStatusEmissions([held], now));
    return announceHeldItems(tx, deps, [heldMessageNotice(held, agent)]);
  });
  if (notices === null) return { status: "skipped", reason: "moved on" };
  if (notices.length > 0) after.push(ingestJobFor(notices));
  return { status: "held", reason: decision.reason };
}

async function agentsOf(prisma: RootDatabase, rows: readonly (MessageRow | null)[]) {
  const keys = [...new Set(rows.flatMap((row) => (row?.agent_key ? [row.agent_key] : [])))];
  const agents = await Promise.all(keys.map((key) => findAgentRow(prisma, key)));
  return new Map(agents.flatMap((agent) => (agent ? [[agent.key, agent] as const] : [])));
}
