import request from "supertest";
import { batchDeliveryLinks, expireHeldItemsSweep } from "@svc/engine";
import { webhookEventsIn } from "@svc/testkit";
import {
  SECRET_KEY,
  heldMessage,
  ingest,
  noticesOf,
  startApprovalsHarness,
  T0,
  type ApprovalsHarness,
} from "./approval-fixtures";

// Each API action writes exactly its webhook event (docs/webhooks.md "Event types") as a
// `webhook.event` outbox entry in the transaction of the change, and nothing for a request that
// changes nothing. The outbox is read directly: the relay does not run in API tests.

let h: ApprovalsHarness;

beforeAll(async () => {
  h = await startApprovalsHarness("webhook_events_of_actions");
  await h.as().post("/v1/categories").send({ key: "news", allow_unsubscribe: true }).expect(201);
});
afterAll(() => h?.close());
beforeEach(async () => {
  h.clock.set(T0);
  await h.prisma.$executeRaw`DELETE FROM outbox`;
});

const at = T0.toISOString();
const message = (id: string, type: string, status: string, reason: string | null, extra = {}) => ({
  type,
  occurred_at: at,
  subject: { kind: "message", id },
  snapshot: { status, status_reason: reason, ...extra },
});

async function backendSend(recipient = "alice") {
  const res = await h
    .as()
    .post("/v1/messages")
    .send({
      recipient,
      template: "deploy",
      category: "transactional",
      channels: ["console"],
      data: { version: "1" },
    })
    .expect(202);
  return res.body.id as string;
}

it("a send writes message.queued; cancelling writes message.cancelled; a second cancel nothing", async () => {
  const id = await backendSend();
  expect(await webhookEventsIn(h.prisma)).toEqual([message(id, "message.queued", "queued", null)]);
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  await h.as().post(`/v1/messages/${id}/cancel`).expect(200);
  expect(await webhookEventsIn(h.prisma)).toEqual([
    message(id, "message.cancelled", "cancelled", "cancelled via API"),
  ]);
  await h.as().post(`/v1/messages/${id}/cancel`).expect(409);
  expect(await webhookEventsIn(h.prisma)).toHaveLength(1);
});

it("engagement: delivered → message.delivered; opened, clicked, converted → message.engaged; repeats nothing", async () => {
  const id = await backendSend();
  await h.prisma.message.update({ where: { id }, data: { status: "sent", sent_at: T0, channel: "console" } });
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  for (const type of ["delivered", "opened", "clicked", "converted", "opened", "delivered"])
    await h.as().post(`/v1/messages/${id}/engagement`).send({ type }).expect(202);
  expect(await webhookEventsIn(h.prisma)).toEqual([
    message(id, "message.delivered", "delivered", null),
    message(id, "message.engaged", "delivered", null, { engagement: "opened" }),
    message(id, "message.engaged", "delivered", null, { engagement: "clicked" }),
    message(id, "message.engaged", "delivered", null, { engagement: "converted" }),
  ]);
});

// A held message's decision is an approval of the message, then its new status.
const decided = (id: string, status: string, by: string | null) => ({
  type: "approval.decided",
  occurred_at: at,
  subject: { kind: "approval", id },
  snapshot: { status, decided_by: by, decided_at: at },
});

it("a held message writes message.pending_approval; rejecting it approval.decided and message.cancelled", async () => {
  const held = await heldMessage(h);
  expect(await webhookEventsIn(h.prisma, held.id)).toEqual([
    message(held.id, "message.pending_approval", "pending_approval", null),
  ]);
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/reject`).send({ reason: "not now" }).expect(200);
  const row = await h.prisma.message.findUniqueOrThrow({ where: { id: held.id } });
  expect(await webhookEventsIn(h.prisma)).toEqual([
    decided(held.id, "rejected", row.reviewed_by),
    message(held.id, "message.cancelled", "cancelled", "rejected: not now"),
  ]);
});

it("approving a held message writes approval.decided and its new status (message.queued), once", async () => {
  const held = await heldMessage(h, "2.0.0");
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/approve`).send({}).expect(200);
  await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/approve`).send({}).expect(409);
  const row = await h.prisma.message.findUniqueOrThrow({ where: { id: held.id } });
  expect(await webhookEventsIn(h.prisma)).toEqual([
    decided(held.id, "approved", row.reviewed_by),
    message(held.id, "message.queued", "queued", null),
  ]);
  // The reviewers' notices are events; ingesting one (no rule tells reviewers here) writes event.processed.
  const [notice] = await noticesOf(h, held.id);
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  await ingest(h, notice!.id);
  const written = await webhookEventsIn(h.prisma);
  expect(written).toEqual([
    {
      type: "event.processed",
      occurred_at: at,
      subject: { kind: "event", id: notice!.id },
      snapshot: { status: "processed" },
    },
  ]);
});

it("a held message past its deadline, expired by the sweep: approval.decided (expired) and message.suppressed", async () => {
  const held = await heldMessage(h, "3.0.0");
  await h.prisma.$executeRaw`DELETE FROM outbox`;
  const deadline = new Date(held.approval_expires_at);
  const sweep = expireHeldItemsSweep({ ...h, now: () => deadline, logger: { warn: () => undefined } });
  await sweep.run({ sweep: sweep.name, now: deadline });
  const when = deadline.toISOString();
  expect(await webhookEventsIn(h.prisma)).toEqual([
    {
      type: "approval.decided",
      occurred_at: when,
      subject: { kind: "approval", id: held.id },
      snapshot: { status: "expired", decided_by: null, decided_at: when },
    },
    {
      type: "message.suppressed",
      occurred_at: when,
      subject: { kind: "message", id: held.id },
      snapshot: { status: "suppressed", status_reason: "expired" },
    },
  ]);
});

describe("recipient.*", () => {
  const person = async (id: string) =>
    h
      .as()
      .put(`/v1/recipients/${id}`)
      .send({ addresses: [{ channel: "console", value: `${id}@example.com` }] })
      .expect([200, 201]);
  const rowOf = (externalId: string) =>
    h.prisma.recipient.findUniqueOrThrow({ where: { external_id: externalId } });

  it("a preference change writes recipient.preferences_changed with the ledger entry's data; no change, nothing", async () => {
    await person("pref-1");
    const { id } = await rowOf("pref-1");
    await h
      .as()
      .put("/v1/recipients/pref-1/preferences")
      .send({ unsubscribed_categories: ["news"] })
      .expect(200);
    await h
      .as()
      .put("/v1/recipients/pref-1/preferences")
      .send({ unsubscribed_categories: ["news"] })
      .expect(200);
    expect(await webhookEventsIn(h.prisma)).toEqual([
      {
        type: "recipient.preferences_changed",
        occurred_at: at,
        subject: { kind: "recipient", id },
        snapshot: {
          external_id: "pref-1",
          source: "api",
          changes: { unsubscribed_categories: { added: ["news"], removed: [] } },
          created_at: at,
        },
      },
    ]);
  });

  it("a consent record is a ledger entry: one event, with or without a change", async () => {
    await person("cons-1");
    const { id } = await rowOf("cons-1");
    const body = {
      categories: ["news"],
      disclosure: "Send me news.",
      method: "checkbox",
      source: "signup_page",
    };
    await h.as().post("/v1/recipients/cons-1/consent").send(body).expect(201);
    expect(await webhookEventsIn(h.prisma)).toEqual([
      {
        type: "recipient.preferences_changed",
        occurred_at: at,
        subject: { kind: "recipient", id },
        snapshot: { external_id: "cons-1", source: "api", changes: {}, created_at: at },
      },
    ]);
    await h.prisma.$executeRaw`DELETE FROM outbox`;
    await h
      .as()
      .put("/v1/recipients/cons-1/preferences")
      .send({ unsubscribed_categories: ["news"] })
      .expect(200);
    await h.prisma.$executeRaw`DELETE FROM outbox`;
    await h.as().post("/v1/recipients/cons-1/consent").send(body).expect(201);
    expect(await webhookEventsIn(h.prisma)).toEqual([
      {
        type: "recipient.preferences_changed",
        occurred_at: at,
        subject: { kind: "recipient", id },
        snapshot: {
          external_id: "cons-1",
          source: "api",
          changes: { unsubscribed_categories: { added: [], removed: ["news"] } },
          created_at: at,
        },
      },
    ]);
  });

  it("the one-click unsubscribe and the hosted preferences write it with their sources", async () => {
    await person("click-1");
    const row = await rowOf("click-1");
    const res = await h
      .as()
      .post("/v1/messages")
      .send({
        recipient: "click-1",
        template: "deploy",
        category: "news",
        channels: ["console"],
        data: { version: "1" },
      })
      .expect(202);
    const stored = await h.prisma.message.findUniqueOrThrow({ where: { id: res.body.id as string } });
    const [links] = await batchDeliveryLinks(
      h.prisma,
      { secretKey: SECRET_KEY, publicUrl: h.config.api.public_url },
      [{ ...stored, content: { body: "[[svc:preferences_url]]" } }],
      T0,
    );
    await h.prisma.$executeRaw`DELETE FROM outbox`;
    const unsubscribe = /\/preferences\/([A-Za-z0-9_-]{43})/.exec(links!.one_click_url!)![1]!;
    await request(h.app)
      .post(`/preferences/${unsubscribe}/unsubscribe`)
      .type("form")
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    const preferences = /\/preferences\/([A-Za-z0-9_-]{43})/.exec(links!.preferences_url!)![1]!;
    await request(h.app)
      .put(`/v1/preferences/${preferences}`)
      .send({ muted_channels: ["console"] })
      .expect(200);
    const snapshot = (source: string, changes: unknown) => ({
      type: "recipient.preferences_changed",
      occurred_at: at,
      subject: { kind: "recipient", id: row.id },
      snapshot: { external_id: "click-1", source, changes, created_at: at },
    });
    expect(await webhookEventsIn(h.prisma)).toEqual([
      snapshot("one_click", { unsubscribed_categories: { added: ["news"], removed: [] } }),
      snapshot("self_service", { muted_channels: { added: ["console"], removed: [] } }),
    ]);
  });

  it("erasure writes recipient.erased with the external id frozen (the person is gone)", async () => {
    await person("erase-1");
    const { id } = await rowOf("erase-1");
    await h.as().delete("/v1/recipients/erase-1").expect(204);
    expect(await webhookEventsIn(h.prisma)).toEqual([
      {
        type: "recipient.erased",
        occurred_at: at,
        subject: { kind: "recipient", id },
        snapshot: { external_id: "erase-1", source: "api", changes: {}, created_at: at },
      },
    ]);
  });
});
