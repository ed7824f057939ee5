import { createHash } from "node:crypto";
import { parseConfig } from "@svc/config";
import { AppError, type Principal } from "@svc/core";
import { createQueues, jobIdFor, queueOf, type Queues } from "@svc/queue";
import {
  createTestDatabase,
  HOOK_PAYLOADS,
  testRedisPrefix,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import type { AcceptEventDeps } from "../../events/accept-event";
import { reportCodingAgentHook } from "../report-hook";

// A coding agent's hook reported as an event (docs/hooks.md "What is reported", "Reported once",
// "Claude Code (HTTP hooks)"): the event's name and exactly its documented `data`, an idempotency
// key derived from the recipient, name, data and payload, accepted as POST /v1/events accepts an
// event (stored `pending`, handed to the ingest queue, per-sender idempotency kept 7 days).

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
beforeAll(async () => {
  db = await createTestDatabase("engine_hooks");
  redis = testRedisPrefix("engine_hooks");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

const BACKEND: Principal = { keyId: "key_backend1", keyName: "ci", scopes: ["events:write"], agentKey: null };
const AGENT: Principal = {
  keyId: "key_claude",
  keyName: "claude",
  scopes: ["events:write"],
  agentKey: "claude-shop",
};
const NOW = new Date("2025-04-07T16:45:00.000Z");
const DAY = 86_400_000;
const SESSION = "8a0b6f0e-3c2d-4e1f-9a7b-5c6d7e8f9a0b";

function deps(now: Date = NOW): AcceptEventDeps {
  return {
    prisma: db.prisma,
    queues,
    config: parseConfig({}),
    logger: { warn: () => undefined },
    now: () => now,
  };
}

const claude = { format: "claude-code" as const };

/** docs/hooks.md "Reported once": `hook:` + SHA-256 of the canonical JSON (keys sorted) of these four. */
function documentedKey(recipient: string, name: string, data: object, payload: object): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
          )
        : value;
  const json = JSON.stringify(sorted({ recipient, name, data, payload }));
  return `hook:${createHash("sha256").update(json).digest("hex")}`;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

it("Stop becomes a pending agent.stop with exactly the documented data, stored and handed to the ingest queue", async () => {
  const payload = HOOK_PAYLOADS.claudeCodeStop;
  const data = {
    hook: "Stop",
    session_id: SESSION,
    project: "shop",
    agent: "claude-code",
    message: payload.last_assistant_message,
  };
  const accepted = await reportCodingAgentHook(deps(), BACKEND, "ada", payload, claude);
  expect(accepted).toEqual({
    duplicate: false,
    event: {
      id: expect.stringMatching(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "agent.stop",
      status: "pending",
      error: null,
      source: "api",
      recipient: "ada",
      agent: null,
      data,
      idempotency_key: documentedKey("ada", "agent.stop", data, payload),
      created_at: NOW.toISOString(),
      processed_at: null,
      outcome: [],
    },
  });
  const row = await db.prisma.event.findUniqueOrThrow({ where: { id: accepted.event.id } });
  expect(row).toMatchObject({
    name: "agent.stop",
    sender: "backend",
    api_key_id: "key_backend1",
    recipient_external_id: "ada",
    recipient_id: null,
    data,
    status: "pending",
    created_at: NOW,
    idempotency_expires_at: new Date(NOW.getTime() + 7 * DAY),
  });
  const job = await queues
    .queue(queueOf("ingest-event"))
    .getJob(jobIdFor("ingest-event", { eventId: row.id }));
  expect(job?.data).toEqual({ eventId: row.id });
});

const claudeData = (hook: string, extra: Record<string, string> = {}) => ({
  hook,
  session_id: SESSION,
  project: "shop",
  agent: "claude-code",
  ...extra,
});

it.each([
  [
    "SubagentStop",
    HOOK_PAYLOADS.claudeCodeSubagentStop,
    "claude-code",
    "agent.stop",
    claudeData("SubagentStop", { message: HOOK_PAYLOADS.claudeCodeSubagentStop.last_assistant_message }),
  ],
  [
    "Notification",
    HOOK_PAYLOADS.claudeCodeNotification,
    "claude-code",
    "agent.notification",
    claudeData("Notification", { message: "Claude needs your permission to use Bash" }),
  ],
  [
    "SessionEnd",
    HOOK_PAYLOADS.claudeCodeSessionEnd,
    "claude-code",
    "agent.session_end",
    claudeData("SessionEnd", { stop_reason: "prompt_input_exit" }),
  ],
  [
    "Codex agent-turn-complete",
    HOOK_PAYLOADS.codexAgentTurnComplete,
    "codex",
    "agent.stop",
    {
      hook: "agent-turn-complete",
      session_id: "b5f6c1c2-1111-2222-3333-444455556666",
      project: "example",
      agent: "codex",
      message: "Rename complete and verified `cargo build` succeeds.",
    },
  ],
] as const)(
  "%s is reported as its event with exactly the documented data",
  async (label, payload, format, name, data) => {
    // Nothing else of the payload travels (no transcript paths, no agent ids, no prompts).
    const { event } = await reportCodingAgentHook(deps(), BACKEND, `table-${label}`, payload, { format });
    expect({ name: event.name, data: event.data }).toEqual({ name, data });
  },
);

it("a repeat is the original (duplicate: true, one row); another person, other options or another sender is another event", async () => {
  const payload = HOOK_PAYLOADS.claudeCodeNotification;
  const first = await reportCodingAgentHook(deps(), BACKEND, "bob", payload, claude);
  // Key order of the payload does not matter (canonical JSON).
  const reordered = Object.fromEntries(Object.entries(payload).reverse());
  const again = await reportCodingAgentHook(
    deps(new Date(NOW.getTime() + 60_000)),
    BACKEND,
    "bob",
    reordered,
    claude,
  );
  expect(again.duplicate).toBe(true);
  expect(again.event).toMatchObject({ id: first.event.id, created_at: NOW.toISOString(), status: "pending" });

  const others = await Promise.all([
    reportCodingAgentHook(deps(), BACKEND, "carol", payload, claude),
    reportCodingAgentHook(deps(), BACKEND, "bob", payload, { ...claude, project: "web" }),
    reportCodingAgentHook(deps(), BACKEND, "bob", payload, { ...claude, event: "build.waiting" }),
    reportCodingAgentHook(deps(), AGENT, "bob", payload, claude),
  ]);
  expect(others.map((o) => o.duplicate)).toEqual([false, false, false, false]);
  expect(new Set([first.event.id, ...others.map((o) => o.event.id)]).size).toBe(5);
  expect(others[3]!.event.agent).toBe("claude-shop");
  // The agent's event has the same key as the backend's first one: keys are scoped per sender.
  expect(others[3]!.event.idempotency_key).toBe(first.event.idempotency_key);
  expect(
    await db.prisma.event.findMany({
      where: { idempotency_key: first.event.idempotency_key },
      select: { sender: true, agent_key: true },
      orderBy: { sender: "asc" },
    }),
  ).toEqual([
    { sender: "backend", agent_key: null },
    { sender: "claude-shop", agent_key: "claude-shop" },
  ]);
});

it("the key is kept 7 days: a re-run just before is a duplicate, one at 7 days reports a new event", async () => {
  const payload = HOOK_PAYLOADS.claudeCodeSessionEnd;
  const first = await reportCodingAgentHook(deps(), BACKEND, "dave", payload, claude);
  const before = await reportCodingAgentHook(
    deps(new Date(NOW.getTime() + 7 * DAY - 1)),
    BACKEND,
    "dave",
    payload,
    claude,
  );
  expect(before).toMatchObject({ duplicate: true, event: { id: first.event.id } });
  const after = await reportCodingAgentHook(
    deps(new Date(NOW.getTime() + 7 * DAY)),
    BACKEND,
    "dave",
    payload,
    claude,
  );
  expect(after.duplicate).toBe(false);
  expect(after.event.id).not.toBe(first.event.id);
  expect(after.event.created_at).toBe(new Date(NOW.getTime() + 7 * DAY).toISOString());
});

it("--event names any hook; without it an unmapped hook or a payload that is no object is 422 at body, nothing stored", async () => {
  const pre = HOOK_PAYLOADS.claudeCodePreToolUseBash;
  const named = await reportCodingAgentHook(deps(), BACKEND, "erin", pre, { ...claude, event: "agent.tool" });
  expect(named.event).toMatchObject({ name: "agent.tool", data: { hook: "PreToolUse", project: "shop" } });

  const before = await db.prisma.event.count();
  for (const payload of [pre, { session_id: "s" }, [HOOK_PAYLOADS.claudeCodeStop], "Stop", null]) {
    const error = await refusal(reportCodingAgentHook(deps(), BACKEND, "erin", payload, claude));
    expect({ code: error.code, status: error.status }).toEqual({ code: "validation", status: 422 });
    expect(error.errors?.map((e) => ({ loc: e.loc, type: e.type }))).toEqual([
      { loc: ["body"], type: "value_error" },
    ]);
  }
  // A Codex payload read as Claude Code's has no hook_event_name either.
  const wrongFormat = await refusal(
    reportCodingAgentHook(deps(), BACKEND, "erin", HOOK_PAYLOADS.codexAgentTurnComplete, claude),
  );
  expect(wrongFormat.code).toBe("validation");
  expect(await db.prisma.event.count()).toBe(before);
});

it("refuses what POST /v1/events refuses: a reserved svc.* name (403), a bad name or recipient (422)", async () => {
  const before = await db.prisma.event.count();
  const reserved = await refusal(
    reportCodingAgentHook(deps(), BACKEND, "erin", HOOK_PAYLOADS.claudeCodeStop, {
      ...claude,
      event: "svc.approval_requested",
    }),
  );
  expect({ code: reserved.code, status: reserved.status }).toEqual({ code: "forbidden", status: 403 });

  const badName = await refusal(
    reportCodingAgentHook(deps(), BACKEND, "erin", HOOK_PAYLOADS.claudeCodeStop, {
      ...claude,
      event: "two words",
    }),
  );
  expect(badName.errors?.map((e) => e.loc)).toEqual([["body", "name"]]);

  const badRecipient = await refusal(
    reportCodingAgentHook(deps(), BACKEND, "erin\u0007", HOOK_PAYLOADS.claudeCodeStop, claude),
  );
  expect({ code: badRecipient.code, status: badRecipient.status }).toEqual({
    code: "validation",
    status: 422,
  });
  expect(badRecipient.errors?.map((e) => e.loc)).toEqual([["body", "recipient"]]);
  expect(await db.prisma.event.count()).toBe(before);
});
