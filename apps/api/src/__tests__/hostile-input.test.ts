import { createECDH, randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import request from "supertest";
import webpush from "web-push";
import { reviewToken } from "@svc/engine";
import { createLogCapture, createLogger } from "@svc/log";
import { createTestDatabase, testRedisPrefix, waitFor, type TestDatabase } from "@svc/testkit";
import { buildHandlers, queuesWithHandlers, startWorkers, type RunningWorkers } from "@svc/worker";
import { startService, type RunningService } from "../start-service";
import { linksOf, makeCategory, makeMessage, makePerson, tokenOfUrl } from "./recipient-rights-fixtures";
import { startHarness, type Harness } from "./service-harness";

// The six findings of the hostile-input probe (docs/operations.md "Hostile input"), each
// reproduced against the whole API with its workers running in this process, and each now
// answered as it should be: no stall, no reach inside the network, no address that is several,
// no form acting on a body it should refuse, no 500, no live token in the log.

const SECRET = "test-secret-key-for-link-tokens-0123456789";
const vapid = webpush.generateVAPIDKeys();
let h: Harness;
let workers: RunningWorkers;
let agentKey: string;
const workerLogs = createLogCapture();

/** A TCP listener on loopback that counts connections and resets each (what the worker hit). */
let trap: net.Server;
let trapPort: number;
let trapConnections = 0;

beforeAll(async () => {
  trap = net.createServer((socket) => {
    trapConnections += 1;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
  trapPort = (trap.address() as net.AddressInfo).port;

  h = await startHarness("hostile_input", {
    secretKey: SECRET,
    env: { VAPID_PRIVATE_KEY: vapid.privateKey },
    config: {
      api: { public_url: "https://svc.example", max_body_bytes: 4 * 1024 * 1024 },
      compliance: { sms_channels: ["sms"] },
      channels: {
        console: { provider: "console" },
        sms: { provider: "console" },
        email: { provider: "smtp", host: "127.0.0.1", port: 9, from: "Shop <noreply@shop.example>" },
        push: {
          provider: "webpush",
          vapid_public_key: vapid.publicKey,
          vapid_private_key_env: "VAPID_PRIVATE_KEY",
          subject: "mailto:ops@shop.example",
        },
      },
    },
  });
  const logger = createLogger({ service: "hostile-workers", level: "info", stream: workerLogs.stream });
  const { handlers } = buildHandlers({
    queues: h.queues,
    logger,
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: { VAPID_PRIVATE_KEY: vapid.privateKey },
    deliverInline: true,
  });
  workers = startWorkers({ config: h.config, handlers, queues: queuesWithHandlers(handlers), logger });
  await h.queues.ready(30_000);

  // No quiet hours: the messages of these tests go out now, whatever the time of day.
  for (const key of ["ops", "letters"])
    await h.as().put(`/v1/categories/${key}`).send({ respect_quiet_hours: false }).expect(201);
  await h
    .as()
    .put("/v1/templates/strip")
    .send({ locales: { en: { title: "t", body: "{{ data.x | striptags }}" } } })
    .expect(201);
  await h
    .as()
    .put("/v1/rules/strip")
    .send({ event: "probe.strip", template: "strip", category: "ops", channels: ["console"] })
    .expect(201);
  // The controls: the same data printed unchanged, so what is left of a stall is the filter's.
  await h
    .as()
    .put("/v1/templates/plain")
    .send({ locales: { en: { title: "t", body: "{{ data.x }}" } } })
    .expect(201);
  await h
    .as()
    .put("/v1/rules/plain")
    .send({ event: "probe.plain", template: "plain", category: "ops", channels: ["console"] })
    .expect(201);
  await h
    .as()
    .put("/v1/agents/prober")
    .send({ name: "Prober", categories: ["ops"] })
    .expect(201);
  agentKey = await h.keyWith(["events:write", "messages:read"], "prober");
  await h
    .as()
    .put("/v1/recipients/victim")
    .send({ addresses: [{ channel: "console", value: "victim-1" }] })
    .expect(201);
  // Every route's validators are compiled on its first request (a one-time pause of its own) and
  // the render threads start: both happen here, with harmless input, before anything is measured.
  await h
    .as()
    .post("/v1/templates/strip/preview")
    .send({ data: { x: "<b>warm</b>" } })
    .expect(200);
  const warm = await h
    .as(agentKey)
    .post("/v1/events")
    .send({ name: "probe.strip", recipient: "victim", data: { x: "<b>warm</b>" } })
    .expect(202);
  await waitFor(
    async () => {
      await request(h.app).get("/healthz").expect(200);
      const event = await h
        .as()
        .get(`/v1/events/${warm.body.id as string}`)
        .expect(200);
      const id = (event.body.outcome as { message_id?: string }[])[0]?.message_id;
      return id ? (await messageOf(id)).status === "sent" : false;
    },
    { timeoutMs: 20_000, what: "the warm-up message sent" },
  );
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await h?.close();
  await new Promise<void>((resolve) => trap?.close(() => resolve()));
});

/**
 * The longest stall allowed beyond the control's: 100 ms. Each case runs against its control (the
 * same data through a template that prints it unchanged): parsing a 1 MB body and writing a 1 MB
 * answer is every request's own cost, and on a fleet's servers or a busy machine that alone comes
 * near the limit (CI's fleet pass once saw 271 ms for the whole preview). What the limit is about
 * is the filter's work, which must be on a render thread. A case over the limit is measured twice
 * more, since other work on the machine shows up in wall-clock stalls too.
 */
const STALL_LIMIT_MS = 100;

/** Runs `work` while watching this process's event loop; returns the longest stall in ms. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const result = await work();
    return { result, stallMs: delay.max / 1e6 };
  } finally {
    delay.disable();
  }
}

/** `work`'s longest stall and its control's, the run with the least excess of up to three. */
async function stallAgainstControl<T>(
  work: () => Promise<T>,
  control: () => Promise<unknown>,
): Promise<{ result: T; stallMs: number; controlMs: number }> {
  let best: { result: T; stallMs: number; controlMs: number } | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { result, stallMs } = await longestStall(work);
    const { stallMs: controlMs } = await longestStall(control);
    if (!best || stallMs - controlMs < best.stallMs - best.controlMs) best = { result, stallMs, controlMs };
    if (best.stallMs - best.controlMs < STALL_LIMIT_MS) break;
  }
  return best!;
}

const messageOf = async (id: string) => (await h.as().get(`/v1/messages/${id}`).expect(200)).body;

describe("1. one event or preview stalls the whole process", () => {
  it("a preview of striptags over 1,000,000 '<' answers at once and never blocks the event loop", async () => {
    const data = { x: "<".repeat(1_000_000) };
    const { result, stallMs, controlMs } = await stallAgainstControl(
      () => h.as().post("/v1/templates/strip/preview").send({ data }),
      () => h.as().post("/v1/templates/plain/preview").send({ data }).expect(200),
    );
    expect(result.status).toBe(200);
    // No `>` anywhere, so nothing is a tag (as in Jinja2): the text comes back as it was.
    expect(result.body.body.length).toBe(1_000_000);
    expect(stallMs - controlMs).toBeLessThan(STALL_LIMIT_MS);
  });

  it("wordwrap(5) of one 40,000-character word renders in well under a second", async () => {
    await h
      .as()
      .put("/v1/templates/wrap")
      .send({ locales: { en: { title: "t", body: "{{ data.x | wordwrap(5) }}" } } })
      .expect(201);
    const started = performance.now();
    const response = await h
      .as()
      .post("/v1/templates/wrap/preview")
      .send({ data: { x: "a".repeat(40_000) } })
      .expect(200);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(response.body.body.split("\n")).toHaveLength(8_000);
  });

  it("an agent's event with 260,000 '<' is composed and sent while /healthz keeps answering at once", async () => {
    const x = `${"<".repeat(260_000)}done`;
    /** Sends the event and waits for its message to be sent; answers /healthz's slowest answer. */
    const sent = async (name: string) => {
      const accepted = await h
        .as(agentKey)
        .post("/v1/events")
        .send({ name, recipient: "victim", data: { x } })
        .expect(202);
      let slowest = 0;
      const message = await waitFor(
        async () => {
          const started = performance.now();
          await request(h.app).get("/healthz").expect(200);
          slowest = Math.max(slowest, performance.now() - started);
          const event = await h
            .as()
            .get(`/v1/events/${accepted.body.id as string}`)
            .expect(200);
          const id = (event.body.outcome as { message_id?: string }[])[0]?.message_id;
          const row = id ? await h.prisma.message.findUnique({ where: { id } }) : null;
          return row?.status === "sent" ? row : null;
        },
        { timeoutMs: 20_000, intervalMs: 20, what: `the ${name} message sent` },
      );
      // No `>`, so no tag (as in Jinja2); what took seconds per render is now one linear pass.
      expect((message.content as { body: string }).body).toBe(x);
      return slowest;
    };
    const {
      result: slowestHealthz,
      stallMs,
      controlMs,
    } = await stallAgainstControl(
      () => sent("probe.strip"),
      () => sent("probe.plain"),
    );
    expect(slowestHealthz).toBeLessThan(250);
    expect(stallMs - controlMs).toBeLessThan(STALL_LIMIT_MS);
  });
});

describe("2. SSRF through recipient data", () => {
  it("a web-push endpoint on loopback is never connected to; the stored error is a category", async () => {
    trapConnections = 0;
    const subscription = JSON.stringify({
      endpoint: `https://127.0.0.1:${trapPort}/x`,
      keys: { p256dh: pushKey(), auth: randomBytes(16).toString("base64url") },
    });
    const writer = await h.keyWith(["recipients:write"]);
    await h
      .as(writer)
      .put("/v1/recipients/scanner")
      .send({ addresses: [{ channel: "push", value: subscription }] })
      .expect(201);
    const sent = await h
      .as()
      .post("/v1/messages")
      .send({
        recipient: "scanner",
        template: "strip",
        category: "ops",
        channels: ["push"],
        data: { x: "hi" },
      })
      .expect(202);
    const failed = await waitFor(
      async () => {
        const message = await messageOf(sent.body.id as string);
        return message.status === "failed" ? message : null;
      },
      { timeoutMs: 20_000, what: "the push message failed" },
    );
    expect(failed.status_reason).toBe("webpush refused: internal address");
    expect(failed.attempts.map((a: { error: string }) => a.error)).toEqual([
      "webpush refused: internal address",
    ]);
    const errors = JSON.stringify([
      failed.status_reason,
      ...failed.attempts.map((a: { error: string }) => a.error),
    ]);
    for (const detail of ["127.0.0.1", String(trapPort), "ECONN"]) expect(errors).not.toContain(detail);
    expect(trapConnections).toBe(0);
  });
});

function pushKey(): string {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return ecdh.getPublicKey().toString("base64url");
}

describe("3. one e-mail address, several mailboxes", () => {
  const badAddresses: [string, { channel: string; value: string }, RegExp][] = [
    [
      "a list",
      { channel: "email", value: "me@example.com, victim@example.org" },
      /email address "me@example\.com, victim@example\.org" is not exactly one e-mail address/,
    ],
    [
      "an RCPT TO injection",
      { channel: "email", value: "c@example.com>\r\nRCPT TO:<evil2@example.com" },
      /email address ".*\\r\\n.*" contains a control character/,
    ],
    ["a display name", { channel: "email", value: "Me <me@example.com>" }, /not exactly one e-mail address/],
    [
      "a national phone number",
      { channel: "sms", value: "555 123 4567" },
      /sms address "555 123 4567" is not a phone number in international form/,
    ],
    [
      "an http push endpoint",
      {
        channel: "push",
        value: JSON.stringify({ endpoint: "http://push.example/x", keys: { p256dh: "a", auth: "b" } }),
      },
      /push address .* is not a push subscription/,
    ],
    ["push JSON that is not JSON", { channel: "push", value: "{endpoint" }, /is not a push subscription/],
    [
      "a control character on any channel",
      { channel: "console", value: "dev\u0007ice" },
      /console address "dev\\u0007ice" contains a control character/,
    ],
  ];

  it.each(badAddresses)(
    "PUT /v1/recipients refuses %s with 422 naming it, storing nothing",
    async (_what, address, msg) => {
      const response = await h
        .as()
        .put("/v1/recipients/careless")
        .send({ addresses: [address] })
        .expect(422);
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(response.body.errors).toEqual([
        { loc: ["body", "addresses", 0, "value"], msg: expect.stringMatching(msg), type: "value_error" },
      ]);
      await h.as().get("/v1/recipients/careless").expect(404);
    },
  );

  it.each(badAddresses)("POST …/addresses refuses %s with 422", async (_what, address, msg) => {
    const response = await h.as().post("/v1/recipients/victim/addresses").send(address).expect(422);
    expect(response.body.errors).toEqual([
      { loc: ["body", "value"], msg: expect.stringMatching(msg), type: "value_error" },
    ]);
  });

  it.each(badAddresses)("an inline profile in an event refuses %s with 422", async (_what, address, msg) => {
    const response = await h
      .as()
      .post("/v1/events")
      .send({ name: "probe.strip", recipient: { external_id: "inline-1", addresses: [address] }, data: {} })
      .expect(422);
    expect(response.body.errors).toEqual([
      {
        loc: ["body", "recipient", "addresses", 0, "value"],
        msg: expect.stringMatching(msg),
        type: "value_error",
      },
    ]);
  });

  it("a batch refuses the item with the bad address and accepts the others", async () => {
    const response = await h
      .as()
      .post("/v1/events/batch")
      .send({
        events: [
          {
            name: "probe.none",
            recipient: {
              external_id: "inline-2",
              addresses: [{ channel: "email", value: "a@example.com,b@example.com" }],
            },
          },
          {
            name: "probe.none",
            recipient: { external_id: "inline-3", addresses: [{ channel: "email", value: "a@example.com" }] },
          },
        ],
      });
    expect(response.status).toBeLessThan(300);
    const [first, second] = response.body.results as { status: number; problem?: { errors?: unknown[] } }[];
    expect(first?.status).toBe(422);
    expect(first?.problem?.errors).toEqual([
      {
        loc: ["body", "events", 0, "recipient", "addresses", 0, "value"],
        msg: expect.stringMatching(/not exactly one e-mail address/),
        type: "value_error",
      },
    ]);
    expect(second?.status).toBe(202);
  });

  it("accepts one mailbox, an E.164 number and an https subscription", async () => {
    await h
      .as()
      .put("/v1/recipients/careful")
      .send({
        addresses: [
          { channel: "email", value: "me@example.com" },
          { channel: "sms", value: "+15551234567" },
          {
            channel: "push",
            value: JSON.stringify({ endpoint: "https://push.example/x", keys: { p256dh: "a", auth: "b" } }),
          },
        ],
      })
      .expect(201);
  });
});

describe("4. hosted forms act on bodies they should refuse", () => {
  async function personWithLinks(externalId: string) {
    await makeCategory(h, `news-${externalId}`, { description: "News" });
    const person = await makePerson(h, externalId);
    const message = await makeMessage(h, person, { category: `news-${externalId}` });
    const links = await linksOf(h, message);
    return {
      person,
      preferences: tokenOfUrl(links.preferences_url!),
      unsubscribe: tokenOfUrl(links.unsubscribe_url!),
    };
  }
  const stateOf = async (id: string) => {
    const row = await h.prisma.recipient.findUniqueOrThrow({ where: { id } });
    const ledger = await h.prisma.consentEntry.count({ where: { recipient_id: id } });
    return { unsubscribed: row.unsubscribed_categories, muted: row.muted_channels, ledger };
  };

  it.each([
    ["JSON", (r: request.Test) => r.send({ form: "preferences" }), 415],
    ["text", (r: request.Test) => r.type("text/plain").send("form=preferences"), 415],
    ["an empty body", (r: request.Test) => r, 415],
    ["a form without the page's submit field", (r: request.Test) => r.type("form").send("subscribed=x"), 400],
    ["an empty form", (r: request.Test) => r.type("form").send(""), 400],
  ] as const)(
    "POST /preferences/{token} with %s is refused and changes nothing",
    async (_what, shape, status) => {
      const { person, preferences } = await personWithLinks(
        `form-${status}-${randomBytes(3).toString("hex")}`,
      );
      const before = await stateOf(person.id);
      const response = await shape(request(h.app).post(`/preferences/${preferences}`));
      expect(response.status).toBe(status);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
      expect(await stateOf(person.id)).toEqual(before);
    },
  );

  it("the page's own form still saves", async () => {
    const { person, preferences } = await personWithLinks(`form-ok-${randomBytes(3).toString("hex")}`);
    await request(h.app)
      .post(`/preferences/${preferences}`)
      .type("form")
      .send("form=preferences")
      .expect(200);
    expect((await stateOf(person.id)).ledger).toBe(1);
  });

  it("one-click unsubscribe works form-encoded and as multipart (RFC 8058); JSON is refused", async () => {
    const first = await personWithLinks(`oneclick-${randomBytes(3).toString("hex")}`);
    await request(h.app)
      .post(`/preferences/${first.unsubscribe}/unsubscribe`)
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ "List-Unsubscribe": "One-Click" }))
      .expect(415);
    expect((await stateOf(first.person.id)).unsubscribed).toEqual([]);
    await request(h.app)
      .post(`/preferences/${first.unsubscribe}/unsubscribe`)
      .type("form")
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    expect((await stateOf(first.person.id)).unsubscribed).toHaveLength(1);

    const second = await personWithLinks(`multipart-${randomBytes(3).toString("hex")}`);
    await request(h.app)
      .post(`/preferences/${second.unsubscribe}/unsubscribe`)
      .field("List-Unsubscribe", "One-Click")
      .expect(200);
    expect((await stateOf(second.person.id)).unsubscribed).toHaveLength(1);
  });

  it("POST /review/{token}/reject with JSON, or a form without its decision field, rejects nothing", async () => {
    await h
      .as()
      .put("/v1/agents/held")
      .send({ name: "Held", approval: true, reviewers: ["boss"], categories: ["ops"] })
      .expect(201);
    const heldKey = await h.keyWith(["messages:write"], "held");
    const sent = await h
      .as(heldKey)
      .post("/v1/messages")
      .send({
        recipient: "victim",
        template: "strip",
        category: "ops",
        channels: ["console"],
        data: { x: "x" },
      })
      .expect(202);
    expect(sent.body.status).toBe("pending_approval");
    const [link] = await h.prisma.reviewLink.findMany({ where: { message_id: sent.body.id as string } });
    const token = reviewToken(SECRET, link!.id, link!.nonce);

    await request(h.app)
      .post(`/review/${token}/reject`)
      .send({ decision: "reject", reason: "no" })
      .expect(415);
    await request(h.app).post(`/review/${token}/reject`).type("form").send("reason=no").expect(400);
    await request(h.app).post(`/review/${token}/approve`).type("form").send("").expect(400);
    expect((await messageOf(sent.body.id as string)).status).toBe("pending_approval");
    await request(h.app)
      .post(`/review/${token}/reject`)
      .type("form")
      .send("decision=reject&reason=no")
      .expect(200);
    expect((await messageOf(sent.body.id as string)).status).toBe("cancelled");
  });
});

describe("5. a 500 instead of a problem", () => {
  /** JSON text nested `depth` objects deep (written out: JSON.stringify itself overflows on it). */
  const nestedJson = (depth: number) => `${'{"a":'.repeat(depth)}"bottom"${"}".repeat(depth)}`;
  const nested = (depth: number): unknown => JSON.parse(nestedJson(depth));
  const problem = (response: request.Response, status: number) => {
    expect(response.status).toBe(status);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(typeof response.body.detail).toBe("string");
  };

  it.each([
    [
      "POST /v1/events",
      "post",
      "/v1/events",
      (deep: string) => `{"name":"probe.none","recipient":"victim","data":${deep}}`,
    ],
    ["PUT /v1/recipients", "put", "/v1/recipients/deep", (deep: string) => `{"attributes":${deep}}`],
    [
      "POST /v1/templates/{key}/preview",
      "post",
      "/v1/templates/strip/preview",
      (deep: string) => `{"data":${deep}}`,
    ],
    [
      "POST /mcp",
      "post",
      "/mcp",
      (deep: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${deep}}`,
    ],
  ] as const)("JSON nested 5,000 deep in %s is a 400 problem", async (_what, method, url, body) => {
    const agent = h.as();
    const response = await agent[method](url)
      .set("Content-Type", "application/json")
      .set("Accept", "application/json, text/event-stream")
      .send(body(nestedJson(5_000)));
    problem(response, 400);
    expect(response.body.detail).toBe("Request body nests deeper than 64 levels of arrays and objects");
  });

  it("64 levels are fine", async () => {
    await h
      .as()
      .put("/v1/recipients/deep-ok")
      .send({ attributes: nested(63) })
      .expect(201);
  });

  it("a lone surrogate in a template body is a 422 naming the place", async () => {
    const response = await h
      .as()
      .put("/v1/templates/surrogate")
      .send({ locales: { en: { title: "t", body: "half \ud800 pair" } } });
    problem(response, 422);
    expect(response.body.errors).toEqual([
      {
        loc: ["body", "locales", "en", "body"],
        msg: "contains an unpaired UTF-16 surrogate, which cannot be stored",
        type: "value_error",
      },
    ]);
  });

  it("a lone surrogate in an attribute key is a 422 naming the place", async () => {
    const response = await h
      .as()
      .put("/v1/recipients/surrogate")
      .send({ attributes: { "k\udc00": 1 } });
    problem(response, 422);
    expect(response.body.errors[0].loc).toEqual(["body", "attributes", "k\udc00"]);
  });

  it.each(["0000-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00", "10000-01-01T00:00:00Z"])(
    "expires_at %s is a 422, not a database error",
    async (expiresAt) => {
      const response = await h
        .as()
        .post("/v1/messages")
        .send({
          recipient: "victim",
          template: "strip",
          category: "ops",
          channels: ["console"],
          expires_at: expiresAt,
        });
      problem(response, 422);
      expect(response.body.errors[0].loc).toEqual(["body", "expires_at"]);
    },
  );

  describe("Node's own parser errors, on the server the service listens with", () => {
    let service: RunningService;
    let db: TestDatabase;
    const redis = testRedisPrefix("hostile_service");
    beforeAll(async () => {
      db = await createTestDatabase("hostile_service");
      service = await startService({
        env: {
          DATABASE_URL: db.databaseUrl,
          REDIS_URL: redis.redisUrl,
          SVC__REDIS__PREFIX: redis.prefix,
          SVC_SECRET_KEY: randomBytes(32).toString("base64url"),
          SVC__API__HOST: "127.0.0.1",
          SVC__API__PORT: "0",
          SVC__WORKER__EMBEDDED: "false",
          SVC__LOG__LEVEL: "error",
        },
        cwd: mkdtempSync(path.join(tmpdir(), "svc-hostile-")),
      });
    }, 60_000);
    afterAll(async () => {
      await service?.close();
      await db?.drop();
      await redis.cleanup();
    });

    async function raw(text: string): Promise<{ head: string; body: string }> {
      const port = (service.server.address() as net.AddressInfo).port;
      const socket = net.connect(port, "127.0.0.1");
      socket.write(text);
      const chunks: Buffer[] = [];
      await new Promise<void>((resolve) => {
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("close", () => resolve());
        socket.on("error", () => resolve());
      });
      const [head = "", body = ""] = Buffer.concat(chunks).toString("utf8").split("\r\n\r\n");
      return { head, body };
    }

    it.each([
      ["a 100 kB URL", `GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ["a 40 kB header", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`, 431],
      ["a request line that is not HTTP", "HELLO THERE\r\n\r\n", 400],
    ])("%s is answered %i as problem+json", async (_what, text, status) => {
      const { head, body } = await raw(text);
      expect(head.split("\r\n")[0]).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
      expect(JSON.parse(body)).toEqual({
        type: "about:blank",
        title: expect.any(String),
        status,
        detail: expect.any(String),
      });
    });
  });
});

describe("6. the console provider writes live tokens to the log", () => {
  it("a delivered message's console line holds its links with the tokens hidden", async () => {
    await h
      .as()
      .put("/v1/templates/links")
      .send({
        locales: {
          en: {
            title: "t",
            body: "Manage {{ recipient.preferences_url }} or leave {{ recipient.unsubscribe_url }}",
          },
        },
      })
      .expect(201);
    const written: string[] = [];
    const spy = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const sent = await h
        .as()
        .post("/v1/messages")
        .send({ recipient: "victim", template: "links", category: "letters", channels: ["console"] })
        .expect(202);
      await waitFor(async () => (await messageOf(sent.body.id as string)).status === "sent", {
        timeoutMs: 20_000,
        what: "the console message sent",
      });
    } finally {
      spy.mockRestore();
    }
    const line = written.find(
      (chunk) => chunk.includes('"provider":"console"') && chunk.includes("/preferences/"),
    );
    expect(line).toBeDefined();
    expect(line).toContain("https://svc.example/preferences/[token]");
    expect(line).not.toMatch(/\/preferences\/[A-Za-z0-9_-]{43}/);
  });
});
