import { createHash } from "node:crypto";
import { webhookEventsIn } from "@svc/testkit";
import type { Harness } from "./service-harness";
import {
  EMPTY_TWIML,
  incomingMessage,
  ledgerOf,
  postWebhook,
  preferencesOf,
  startInboundHarness,
} from "./inbound-fixtures";

// STOP and START (docs/texting.md), through both endpoints: the backend's POST /v1/inbound/sms and
// Twilio's signed webhook. Two people share one number (written two ways); a third has another.
// Then erasure: the number stays suppressed, and a profile written later with it starts muted
// until a START.

const NUMBER = "+15550100001";
const hashOf = (n: string) => createHash("sha256").update(n).digest("hex");
let h: Harness;
let apiKeyId: string;
let apiKey: string;

beforeAll(async () => {
  h = await startInboundHarness("inbound_sms");
  apiKey = await h.keyWith(["recipients:write"]);
  apiKeyId = h.keyIdOf(apiKey);
  await h.as().post("/v1/categories").send({ key: "news" }).expect(201);
  await h.as().post("/v1/categories").send({ key: "security", allow_unsubscribe: false }).expect(201);
  const person = (sms: string, email: string) => ({
    addresses: [
      { channel: "sms", value: sms },
      { channel: "email", value: email },
    ],
  });
  await h.as().put("/v1/recipients/ann").send(person("+1 (555) 010-0001", "ann@example.com")).expect(201);
  await h.as().put("/v1/recipients/bob").send(person("0015550100001", "bob@example.com")).expect(201);
  await h.as().put("/v1/recipients/cyd").send(person("+15550100002", "cyd@example.com")).expect(201);
  // Bob had left `news` himself already.
  await h
    .as()
    .put("/v1/recipients/bob/preferences")
    .send({ unsubscribed_categories: ["news"] })
    .expect(200);
}, 60_000);
afterAll(() => h.close());

const report = (body: string, messageId: string, from = NUMBER) =>
  h.as(apiKey).post("/v1/inbound/sms").send({ from, body, message_id: messageId });

const twilioSays = (body: string, sid: string) => postWebhook(h, incomingMessage(NUMBER, body, sid));

const viaTwilio = (keyword: string, sid: string) => ({
  method: "sms_reply",
  keyword,
  from: NUMBER,
  message_id: sid,
  provider: "twilio",
});
const viaApi = (keyword: string, id: string) => ({
  method: "sms_reply",
  keyword,
  from: NUMBER,
  message_id: id,
  api_key: apiKeyId,
});
const muted = { muted_channels: { added: ["sms"], removed: [] } };
const unmuted = { muted_channels: { added: [], removed: ["sms"] } };

it("STOP, STOPALL, opt out, START and other replies, through both endpoints, for two people with one number", async () => {
  // 1. STOP through Twilio's webhook: both people muted for texts and out of every optional category.
  const stop = await twilioSays("STOP", "SM0001").expect(200);
  expect(stop.headers["content-type"]).toMatch(/^text\/xml/);
  expect(stop.text).toBe(EMPTY_TWIML);
  expect(await preferencesOf(h, "ann")).toMatchObject({
    muted_channels: ["sms"],
    unsubscribed_categories: ["marketing", "news"],
  });
  expect(await preferencesOf(h, "bob")).toMatchObject({
    muted_channels: ["sms"],
    unsubscribed_categories: ["news", "marketing"],
  });
  expect(await preferencesOf(h, "cyd")).toMatchObject({ muted_channels: [], unsubscribed_categories: [] });
  expect(await h.prisma.smsSuppression.findUnique({ where: { phone_sha256: hashOf(NUMBER) } })).toMatchObject(
    {
      keyword: "stop",
    },
  );

  // 2. The same webhook again (Twilio retried): nothing changes.
  await twilioSays("STOP", "SM0001").expect(200, EMPTY_TWIML);
  expect(await h.prisma.inboundReply.count({ where: { provider_message_id: "SM0001" } })).toBe(1);

  // 3. START from the backend: texts back, categories stay left.
  expect((await report("Start", "reply-3").expect(200)).body).toEqual({
    action: "start",
    recipients: 2,
    duplicate: false,
  });
  expect(await preferencesOf(h, "ann")).toMatchObject({
    muted_channels: [],
    unsubscribed_categories: ["marketing", "news"],
  });
  expect(await h.prisma.smsSuppression.count()).toBe(0);

  // 4. STOPALL from the backend, 5. START through Twilio, 6. "opt out" from the backend.
  expect((await report(" STOPALL ", "reply-4").expect(200)).body).toEqual({
    action: "stop",
    recipients: 2,
    duplicate: false,
  });
  await twilioSays("start", "SM0005").expect(200, EMPTY_TWIML);
  expect((await report("Opt Out", "reply-6").expect(200)).body).toEqual({
    action: "stop",
    recipients: 2,
    duplicate: false,
  });

  // 7. Anything else changes nothing, HELP included (Twilio answers HELP itself).
  expect((await report("Thanks, see you!", "reply-7").expect(200)).body).toEqual({
    action: "none",
    recipients: 0,
    duplicate: false,
  });
  await twilioSays("HELP", "SM0008").expect(200, EMPTY_TWIML);
  await twilioSays("stop please", "SM0009").expect(200, EMPTY_TWIML);
  // A repeated report answers what it did the first time, and changes nothing.
  expect((await report("Opt Out", "reply-6").expect(200)).body).toEqual({
    action: "stop",
    recipients: 0,
    duplicate: true,
  });

  expect(await preferencesOf(h, "ann")).toMatchObject({ muted_channels: ["sms"] });
  expect(await preferencesOf(h, "cyd")).toMatchObject({ muted_channels: [], unsubscribed_categories: [] });

  // The ledger: one entry per person per change, exactly.
  expect(await ledgerOf(h, "ann")).toEqual([
    {
      source: "sms_keyword",
      changes: { ...muted, unsubscribed_categories: { added: ["marketing", "news"], removed: [] } },
      provenance: viaTwilio("stop", "SM0001"),
    },
    { source: "sms_keyword", changes: unmuted, provenance: viaApi("start", "reply-3") },
    { source: "sms_keyword", changes: muted, provenance: viaApi("stopall", "reply-4") },
    { source: "sms_keyword", changes: unmuted, provenance: viaTwilio("start", "SM0005") },
    { source: "sms_keyword", changes: muted, provenance: viaApi("opt out", "reply-6") },
  ]);
  expect(await ledgerOf(h, "bob")).toEqual([
    {
      source: "sms_keyword",
      changes: { ...muted, unsubscribed_categories: { added: ["marketing"], removed: [] } },
      provenance: viaTwilio("stop", "SM0001"),
    },
    { source: "sms_keyword", changes: unmuted, provenance: viaApi("start", "reply-3") },
    { source: "sms_keyword", changes: muted, provenance: viaApi("stopall", "reply-4") },
    { source: "sms_keyword", changes: unmuted, provenance: viaTwilio("start", "SM0005") },
    { source: "sms_keyword", changes: muted, provenance: viaApi("opt out", "reply-6") },
  ]);
  expect(await ledgerOf(h, "cyd")).toEqual([]);

  // Every reply is kept once, by its E.164 sender.
  const replies = await h.prisma.inboundReply.findMany({ orderBy: { created_at: "asc" } });
  expect(replies.map((r) => [r.provider, r.provider_message_id, r.from, r.keyword, r.action])).toEqual([
    ["twilio", "SM0001", NUMBER, "stop", "stop"],
    ["api", "reply-3", NUMBER, "start", "start"],
    ["api", "reply-4", NUMBER, "stopall", "stop"],
    ["twilio", "SM0005", NUMBER, "start", "start"],
    ["api", "reply-6", NUMBER, "opt out", "stop"],
    ["api", "reply-7", NUMBER, null, "none"],
    ["twilio", "SM0008", NUMBER, "help", "none"],
    ["twilio", "SM0009", NUMBER, null, "none"],
  ]);
});

it("after erasure the number stays suppressed: a profile written later with it is muted until START", async () => {
  // Ann and Bob are muted by the "opt out" above; both are erased.
  await h.as().delete("/v1/recipients/ann").expect(204);
  await h.as().delete("/v1/recipients/bob").expect(204);
  expect(await h.prisma.smsSuppression.findUnique({ where: { phone_sha256: hashOf(NUMBER) } })).toMatchObject(
    {
      keyword: "opt out",
    },
  );

  // A new profile with the number (written yet another way), and a number added to a profile later.
  await h
    .as()
    .put("/v1/recipients/ann-again")
    .send({ addresses: [{ channel: "sms", value: "+1.555.010.0001" }] })
    .expect(201);
  await h.as().put("/v1/recipients/eve").send({}).expect(201);
  await h.as().post("/v1/recipients/eve/addresses").send({ channel: "sms", value: NUMBER }).expect(201);
  const suppressed = {
    source: "sms_keyword",
    changes: muted,
    provenance: { method: "suppression_list", keyword: "opt out", number: NUMBER },
  };
  for (const person of ["ann-again", "eve"]) {
    expect(await preferencesOf(h, person)).toEqual({
      muted_channels: ["sms"],
      unsubscribed_categories: [],
      quiet_hours: null,
    });
    expect(await ledgerOf(h, person)).toEqual([suppressed]);
  }
  // An address on a channel that does not send texts is not a text number.
  await h
    .as()
    .put("/v1/recipients/fax-only")
    .send({ addresses: [{ channel: "email", value: NUMBER }] });
  expect(await preferencesOf(h, "fax-only")).toMatchObject({ muted_channels: [] });

  // START lifts it for everyone with the number, and for profiles written afterwards.
  await twilioSays("UNSTOP", "SM0010").expect(200, EMPTY_TWIML);
  expect(await preferencesOf(h, "ann-again")).toMatchObject({ muted_channels: [] });
  expect(await preferencesOf(h, "eve")).toMatchObject({ muted_channels: [] });
  expect(await h.prisma.smsSuppression.count()).toBe(0);
  await h
    .as()
    .put("/v1/recipients/fay")
    .send({ addresses: [{ channel: "sms", value: NUMBER }] })
    .expect(201);
  expect(await preferencesOf(h, "fay")).toMatchObject({ muted_channels: [] });
  expect(await ledgerOf(h, "fay")).toEqual([]);
});

describe.each(["backend", "twilio"] as const)("every keyword through the %s endpoint", (endpoint) => {
  // Two more people sharing another number, per endpoint.
  const number = endpoint === "backend" ? "+15550100010" : "+15550100020";
  const people = [`${endpoint}-hal`, `${endpoint}-ivy`];
  const steps: [reply: string, keyword: string | null, mutedAfter: string[]][] = [
    ["STOP", "stop", ["sms"]],
    ["START", "start", []],
    ["StopAll", "stopall", ["sms"]],
    ["yes", "yes", []],
    ["opt out", "opt out", ["sms"]],
    ["unstop", "unstop", []],
    ["OPTOUT", "optout", ["sms"]],
    ["Is this the pharmacy?", null, ["sms"]],
  ];

  beforeAll(async () => {
    for (const person of people)
      await h
        .as()
        .put(`/v1/recipients/${person}`)
        .send({ addresses: [{ channel: "sms", value: number }] })
        .expect(201);
  });

  it("changes both people at every keyword and nothing otherwise; one ledger entry each per change", async () => {
    for (const [i, [reply, keyword, mutedAfter]] of steps.entries()) {
      const id = `${endpoint}-${i}`;
      if (endpoint === "backend") {
        const res = await report(reply, id, number).expect(200);
        expect(res.body).toEqual({
          action: keyword === null ? "none" : mutedAfter.length > 0 ? "stop" : "start",
          recipients: keyword === null ? 0 : 2,
          duplicate: false,
        });
      } else {
        await postWebhook(h, incomingMessage(number, reply, id)).expect(200, EMPTY_TWIML);
      }
      for (const person of people)
        expect(await preferencesOf(h, person)).toMatchObject({ muted_channels: mutedAfter });
    }
    for (const person of people) {
      const entries = await ledgerOf(h, person);
      expect(entries.map((e) => (e.provenance as { keyword: string }).keyword)).toEqual(
        steps.flatMap(([, keyword]) => (keyword === null ? [] : [keyword])),
      );
      expect(entries.map((e) => (e.provenance as { from: string }).from)).toEqual(Array(7).fill(number));
      for (const entry of entries) {
        expect(entry.provenance).toMatchObject(
          endpoint === "backend" ? { api_key: apiKeyId } : { provider: "twilio" },
        );
      }
    }
  });
});

it("each ledger entry of a STOP or START writes recipient.preferences_changed (docs/webhooks.md)", async () => {
  await h
    .as()
    .put("/v1/recipients/dee")
    .send({ addresses: [{ channel: "sms", value: "+15550100009" }] })
    .expect(201);
  const dee = await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: "dee" } });
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  await report("STOP", "reply-dee-1", "+15550100009").expect(200);
  await report("STOP", "reply-dee-2", "+15550100009").expect(200); // changes nothing: no entry
  await report("START", "reply-dee-3", "+15550100009").expect(200);
  const ledger = await ledgerOf(h, "dee");
  expect(ledger).toHaveLength(2);
  const events = await webhookEventsIn(h.prisma);
  expect(
    events.map((e) => [e.type, e.subject, e.snapshot?.source, e.snapshot?.external_id, e.snapshot?.changes]),
  ).toEqual(
    ledger.map((entry) => [
      "recipient.preferences_changed",
      { kind: "recipient", id: dee.id },
      "sms_keyword",
      "dee",
      entry.changes,
    ]),
  );
});
