import { ingestEvent } from "@svc/engine";
import { HOOK_PAYLOADS } from "@svc/testkit";
import { startHarness, type Harness } from "./service-harness";

// POST /v1/hooks/claude-code (docs/hooks.md "HTTP hooks"): Claude Code's own JSON becomes the same
// event `svcctl hook` reports; a repeat is a duplicate; what cannot be mapped is 422.

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness("hooks_api");
  key = await h.keyWith(["events:write"]);
}, 60_000);
afterAll(() => h.close());

const post = (query: string, body: unknown) =>
  h
    .as(key)
    .post(`/v1/hooks/claude-code?${query}`)
    .send(body as object);
const SESSION = "8a0b6f0e-3c2d-4e1f-9a7b-5c6d7e8f9a0b";

it.each([
  [
    HOOK_PAYLOADS.claudeCodeStop,
    "agent.stop",
    { hook: "Stop", message: HOOK_PAYLOADS.claudeCodeStop.last_assistant_message },
  ],
  [
    HOOK_PAYLOADS.claudeCodeSubagentStop,
    "agent.stop",
    { hook: "SubagentStop", message: HOOK_PAYLOADS.claudeCodeSubagentStop.last_assistant_message },
  ],
  [
    HOOK_PAYLOADS.claudeCodeNotification,
    "agent.notification",
    { hook: "Notification", message: "Claude needs your permission to use Bash" },
  ],
  [
    HOOK_PAYLOADS.claudeCodeSessionEnd,
    "agent.session_end",
    { hook: "SessionEnd", stop_reason: "prompt_input_exit" },
  ],
])("hook %# → %s, the data exactly; again → 200 duplicate", async (payload, name, extra) => {
  const recipient = `ada-${(payload as { hook_event_name: string }).hook_event_name}`;
  const first = await post(`recipient=${recipient}`, payload).expect(202);
  const data = { session_id: SESSION, project: "shop", agent: "claude-code", ...extra };
  expect(first.body).toMatchObject({ name, recipient, status: "pending", duplicate: false });
  expect(first.body.data).toStrictEqual(data);
  expect(first.body.idempotency_key).toMatch(/^hook:[0-9a-f]{64}$/);
  const again = await post(`recipient=${recipient}`, payload).expect(200);
  expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
  expect(await h.prisma.event.count({ where: { recipient_external_id: recipient } })).toBe(1);
});

it("takes event, project and agent from the query", async () => {
  const res = await post(
    "recipient=ada&event=build.done&project=web&agent=ada-laptop",
    HOOK_PAYLOADS.claudeCodeStop,
  ).expect(202);
  expect(res.body).toMatchObject({
    name: "build.done",
    data: { hook: "Stop", project: "web", agent: "ada-laptop", session_id: SESSION },
  });
});

it.each([
  ["recipient=ada", { hook_event_name: "PreToolUse" }, ["body"], /hook 'PreToolUse' is not reported/],
  ["recipient=ada", { session_id: "s" }, ["body", "hook_event_name"], /is required/],
  ["", HOOK_PAYLOADS.claudeCodeStop, ["query", "recipient"], /is required/],
])("422 for query %j (%#)", async (query, payload, loc, msg) => {
  const res = await post(query, payload).expect(422);
  expect(res.body.errors).toEqual([expect.objectContaining({ loc })]);
  expect(res.body.errors[0].msg).toMatch(msg);
});

it("needs events:write, and refuses reserved names like POST /v1/events", async () => {
  const readOnly = await h.keyWith(["messages:read"]);
  await h
    .as(readOnly)
    .post("/v1/hooks/claude-code?recipient=ada")
    .send(HOOK_PAYLOADS.claudeCodeStop)
    .expect(403);
  const reserved = await post("recipient=ada&event=svc.sneaky", HOOK_PAYLOADS.claudeCodeStop).expect(403);
  expect(reserved.body.detail).toMatch(/svc\./);
});

describe("docs/hooks.md's recipes keep a busy agent from flooding a person", () => {
  let busy: Harness;
  let hookKey: string;
  beforeAll(async () => {
    busy = await startHarness("hooks_recipes", {
      config: { channels: { console: { provider: "console" } } },
    });
    hookKey = await busy.keyWith(["events:write"]);
    await busy
      .as()
      .put("/v1/templates/agent-update")
      .send({
        locales: { en: { title: "{{ data.project }}: {{ data.agent }}", body: "{{ data.message }}" } },
      })
      .expect(201);
    await busy
      .as()
      .put("/v1/recipients/ada")
      .send({ addresses: [{ channel: "console", value: "ada" }] })
      .expect(201);
  }, 60_000);
  afterAll(() => busy.close());

  /** Three turns of one busy session, each reported and ingested. */
  async function threeTurns(recipient: string) {
    const outcomes = [];
    for (const turn of [1, 2, 3]) {
      const payload = { ...HOOK_PAYLOADS.claudeCodeStop, last_assistant_message: `turn ${turn} done` };
      const res = await busy
        .as(hookKey)
        .post(`/v1/hooks/claude-code?recipient=${recipient}`)
        .send(payload)
        .expect(202);
      await ingestEvent({ prisma: busy.prisma, config: busy.config, now: () => new Date() }, res.body.id);
      const event = await busy.as().get(`/v1/events/${res.body.id}`).expect(200);
      outcomes.push(event.body.outcome);
    }
    return outcomes;
  }

  it("a cooldown on agent.*: the first turn is told, the next ones are suppressed", async () => {
    await busy
      .as()
      .put("/v1/rules/coding-agent")
      .send({
        event: "agent.*",
        template: "agent-update",
        category: "transactional",
        channels: ["console"],
        cooldown_seconds: 900,
      })
      .expect(201);
    const outcomes = await threeTurns("ada");
    expect(outcomes).toEqual([
      [expect.objectContaining({ rule: "coding-agent", matched: true, status: "queued" })],
      [expect.objectContaining({ rule: "coding-agent", status: "suppressed", reason: "cooldown" })],
      [expect.objectContaining({ rule: "coding-agent", status: "suppressed", reason: "cooldown" })],
    ]);
    await busy.as().delete("/v1/rules/coding-agent").expect(204);
  });

  it("a digest per project on agent.stop: every turn joins one message", async () => {
    await busy
      .as()
      .put("/v1/recipients/grace")
      .send({ addresses: [{ channel: "console", value: "grace" }] })
      .expect(201);
    await busy
      .as()
      .put("/v1/rules/coding-agent-digest")
      .send({
        event: "agent.stop",
        template: "agent-update",
        category: "transactional",
        channels: ["console"],
        digest: { window: "PT10M", key: "{{ data.project }}", max_items: 20 },
      })
      .expect(201);
    const outcomes = await threeTurns("grace");
    expect(outcomes.flat().map((o) => (o as { reason: string }).reason)).toEqual([
      "digested",
      "digested",
      "digested",
    ]);
    const digests = await busy.prisma.digest.findMany({ where: { rule_key: "coding-agent-digest" } });
    expect(digests).toHaveLength(1);
    expect(digests[0]).toMatchObject({ key: "shop", count: 3, status: "open" });
  });
});
