import request from "supertest";
import twilio from "twilio";
import type { Harness } from "./service-harness";
import {
  AUTH_TOKEN,
  EMPTY_TWIML,
  incomingMessage,
  postWebhook,
  preferencesOf,
  PUBLIC_URL,
  startInboundHarness,
  WEBHOOK,
} from "./inbound-fixtures";

// The provider webhook's signature (docs/texting.md "Twilio"), bad input on both inbound
// endpoints, and the races: repeats of one reply, and a reply against a profile write adding
// its number.

let h: Harness;

beforeAll(async () => {
  h = await startInboundHarness("inbound_webhook");
  await h
    .as()
    .put("/v1/recipients/gil")
    .send({ addresses: [{ channel: "sms", value: "+15550200001" }] })
    .expect(201);
}, 60_000);
afterAll(() => h.close());

const expectProblem = (res: request.Response, status: number, detail: RegExp) => {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: "about:blank", status });
  expect(res.body.detail).toMatch(detail);
};

const STOP = incomingMessage("+15550200001", "STOP", "SM1000");

describe("the signature", () => {
  it("a valid one passes; the query string is part of what is signed", async () => {
    await postWebhook(h, incomingMessage("+15550299999", "hello", "SM1001")).expect(200, EMPTY_TWIML);
    const path = `${WEBHOOK}?tenant=acme&x=1`;
    await postWebhook(h, incomingMessage("+15550299999", "hi", "SM1002"), { path }).expect(200, EMPTY_TWIML);
    const signedWithoutQuery = twilio.getExpectedTwilioSignature(AUTH_TOKEN, PUBLIC_URL + WEBHOOK, STOP);
    const res = await postWebhook(h, STOP, { path, signature: signedWithoutQuery });
    expectProblem(
      res,
      403,
      /svc checks it for https:\/\/svc\.example\.com\/v1\/inbound\/smsprovider\?tenant=acme&x=1/,
    );
    // Twilio may sign the URL with its default port.
    const params = incomingMessage("+15550299999", "hey", "SM1003");
    const withPort = twilio.getExpectedTwilioSignature(
      AUTH_TOKEN,
      "https://svc.example.com:443" + WEBHOOK,
      params,
    );
    await postWebhook(h, params, { signature: withPort }).expect(200, EMPTY_TWIML);
  });

  it.each<[string, () => string | null, RegExp]>([
    ["missing", () => null, /missing X-Twilio-Signature header/],
    ["empty", () => "", /missing X-Twilio-Signature header/],
    [
      "made with another auth token",
      () => twilio.getExpectedTwilioSignature("another-token", PUBLIC_URL + WEBHOOK, STOP),
      /X-Twilio-Signature does not match this request \(svc checks it for https:\/\/svc\.example\.com\/v1\/inbound\/smsprovider\)/,
    ],
    [
      "made for another address",
      () => twilio.getExpectedTwilioSignature(AUTH_TOKEN, "http://127.0.0.1:8080" + WEBHOOK, STOP),
      /does not match/,
    ],
    [
      "made for other parameters (Body START)",
      () => twilio.getExpectedTwilioSignature(AUTH_TOKEN, PUBLIC_URL + WEBHOOK, { ...STOP, Body: "START" }),
      /does not match/,
    ],
    ["garbage", () => "not-a-signature", /does not match/],
  ])("%s: 403 problem, nothing recorded", async (_why, signature, detail) => {
    expectProblem(await postWebhook(h, STOP, { signature: signature() }), 403, detail);
    expect(await h.prisma.inboundReply.count({ where: { provider_message_id: "SM1000" } })).toBe(0);
    expect(await preferencesOf(h, "gil")).toMatchObject({ muted_channels: [] });
  });

  it("is checked before the body: an unsigned empty or JSON body is 403, not 422 or 415", async () => {
    expectProblem(await request(h.app).post(WEBHOOK).type("form").send(""), 403, /missing/);
    expectProblem(await request(h.app).post(WEBHOOK).send({ From: "+1" }), 403, /missing/);
  });

  it("an API key is no credential here", async () => {
    expectProblem(await h.as().post(WEBHOOK).type("form").send("From=%2B15550200001"), 403, /missing/);
  });
});

describe("bad input: 422 with the field", () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    [
      "a number without a country code",
      { from: "555-0100", body: "STOP", message_id: "r1" },
      {
        loc: ["body", "from"],
        msg: "expected a phone number in E.164 form: + and the country code, e.g. +15551234567",
        type: "value_error",
      },
    ],
    ["no message_id", { from: "+15550200001", body: "STOP" }, expect.objectContaining({ type: "missing" })],
    [
      "an unknown field",
      { from: "+15550200001", body: "STOP", message_id: "r1", to: "+1" },
      expect.objectContaining({ loc: ["body", "to"], type: "additional_properties" }),
    ],
    [
      "a body longer than 1,600 characters",
      { from: "+15550200001", body: "x".repeat(1601), message_id: "r1" },
      expect.objectContaining({ loc: ["body", "body"], type: "max_length" }),
    ],
  ])("POST /v1/inbound/sms with %s", async (_why, body, issue) => {
    const res = await h.as().post("/v1/inbound/sms").send(body);
    expectProblem(res, 422, /./);
    expect(res.body.errors).toEqual([issue]);
  });

  it.each<[string, Record<string, string>, unknown]>([
    [
      "a sender that is not a number (a WhatsApp sender)",
      incomingMessage("whatsapp:+15550200001", "STOP", "SM2001"),
      expect.objectContaining({ loc: ["body", "From"], type: "value_error" }),
    ],
    [
      "no MessageSid",
      (({ MessageSid: _omit, ...rest }) => rest)(incomingMessage("+15550200001", "STOP", "SM2002")),
      expect.objectContaining({ loc: ["body", "MessageSid"], type: "missing" }),
    ],
  ])("the signed webhook with %s", async (_why, params, issue) => {
    const res = await postWebhook(h, params);
    expectProblem(res, 422, /./);
    expect(res.body.errors).toEqual([issue]);
    expect(await preferencesOf(h, "gil")).toMatchObject({ muted_channels: [] });
  });

  it("agent-bound keys are refused before validation (403)", async () => {
    const agentKey = await h.keyWith(["recipients:write"], "texting-bot");
    expectProblem(
      await h.as(agentKey).post("/v1/inbound/sms").send({}),
      403,
      /agent keys may not change recipients/,
    );
  });
});

describe("races", () => {
  it("one reply posted five times at once changes the person once", async () => {
    const params = incomingMessage("+15550200001", "STOP", "SM3000");
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => postWebhook(h, params)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const entries = await h.prisma.consentEntry.count({ where: { source: "sms_keyword" } });
    expect(entries).toBe(1);
    expect(await h.prisma.inboundReply.count({ where: { provider_message_id: "SM3000" } })).toBe(1);
    expect(await preferencesOf(h, "gil")).toMatchObject({ muted_channels: ["sms"] });
  });

  it("a STOP racing a profile write that adds the number: the profile ends muted, every time", async () => {
    const rounds = Array.from({ length: 12 }, (_, i) => i);
    await Promise.all(
      rounds.map(async (i) => {
        const number = `+1555030${String(i).padStart(4, "0")}`;
        await Promise.all([
          h
            .as()
            .put(`/v1/recipients/racer-${i}`)
            .send({ addresses: [{ channel: "sms", value: number }] })
            .expect(201),
          h
            .as()
            .post("/v1/inbound/sms")
            .send({ from: number, body: "STOP", message_id: `race-${i}` })
            .expect(200),
        ]);
      }),
    );
    for (const i of rounds) {
      expect(await preferencesOf(h, `racer-${i}`)).toMatchObject({ muted_channels: ["sms"] });
    }
  });
});
