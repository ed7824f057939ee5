// Concurrent direct sends share a transaction (docs/messages.md "Direct sends"): each is still
// decided under its person's lock and sees the person's earlier sends, and one send's refusal
// does not fail the others of its batch.
import { newId } from "@svc/core";
import { startHarness, type Harness } from "./service-harness";

const NOW = new Date("2024-01-15T12:00:00Z"); // Monday noon UTC: outside the default quiet hours

let h: Harness;
let backendKey: string;
beforeAll(async () => {
  h = await startHarness("messages_batched", {
    now: () => NOW,
    config: { channels: { email: { provider: "console" } } },
  });
  backendKey = await h.keyWith(["messages:write", "messages:read"]);
  await h.prisma.template.create({
    data: { key: "hello", locales: { en: { title: "Hi", body: "{{ data.msg }}" } } },
  });
}, 60_000);
afterAll(() => h.close());

let people = 0;
async function person(): Promise<string> {
  const externalId = `batched-${++people}`;
  await h.prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: externalId,
      addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
    },
  });
  return externalId;
}

const send = (recipient: string, category = "transactional", template = "hello") =>
  h
    .as(backendKey)
    .post("/v1/messages")
    .send({ recipient, template, category, channels: ["email"], data: { msg: "hi" } });

test("30 concurrent sends to 10 people under a cap of 2: exactly 2 queued per person", async () => {
  const recipients = await Promise.all(Array.from({ length: 10 }, () => person()));
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => send(recipients[i % 10]!, "marketing")),
  );
  expect(responses.every((r) => r.status === 202)).toBe(true);
  for (const recipient of recipients) {
    const outcomes = responses
      .filter((r) => r.body.recipient === recipient)
      .map((r) => `${r.body.status} ${r.body.status_reason}`)
      .sort();
    expect(outcomes).toEqual(["queued null", "queued null", "suppressed frequency_cap: 2 per P1D"]);
  }
  const stored = await h.prisma.message.groupBy({
    by: ["status"],
    where: { recipient_external_id: { in: recipients } },
    _count: true,
  });
  expect(Object.fromEntries(stored.map((s) => [s.status, s._count]))).toEqual({ queued: 20, suppressed: 10 });
}, 30_000);

test("a refused send among concurrent ones: 422 for it alone, the others 202", async () => {
  const recipients = await Promise.all(Array.from({ length: 8 }, () => person()));
  const responses = await Promise.all([
    ...recipients.map((r) => send(r)),
    send("nobody-here"),
    send(recipients[0]!, "transactional", "no-such-template"),
  ]);
  expect(responses.slice(0, 8).map((r) => [r.status, r.body.status])).toEqual(
    recipients.map(() => [202, "queued"]),
  );
  expect(responses[8]!.status).toBe(422);
  expect(responses[8]!.body.errors).toEqual([
    { loc: ["body", "recipient"], msg: "no recipient 'nobody-here'", type: "not_found" },
  ]);
  expect(responses[9]!.status).toBe(422);
  expect(responses[9]!.body.errors).toEqual([
    { loc: ["body", "template"], msg: "no template 'no-such-template'", type: "not_found" },
  ]);
  expect(await h.prisma.message.count({ where: { recipient_external_id: { in: recipients } } })).toBe(8);
}, 30_000);
