import { messageEmission, messageEventTypeOf, webhookEntries, webhookPayload } from "../emit";

const AT = new Date("2026-12-09T10:00:00.123Z");

describe("webhook outbox entries", () => {
  it("builds the payload of the contract: type, occurred_at, subject, snapshot", () => {
    expect(
      webhookPayload({
        type: "recipient.erased",
        occurredAt: AT,
        subject: { kind: "recipient", id: "rcp_1" },
        snapshot: { external_id: "u-1", created_at: AT, gone: undefined },
      }),
    ).toEqual({
      type: "recipient.erased",
      occurred_at: "2026-12-09T10:00:00.123Z",
      subject: { kind: "recipient", id: "rcp_1" },
      snapshot: { external_id: "u-1", created_at: "2026-12-09T10:00:00.123Z" },
    });
  });

  it("leaves snapshot out when there is none, and writes topic webhook.event without a notice", () => {
    expect(
      webhookEntries([{ type: "digest.sent", occurredAt: AT, subject: { kind: "digest", id: "dig_1" } }]),
    ).toEqual([
      {
        topic: "webhook.event",
        notify: null,
        payload: {
          type: "digest.sent",
          occurred_at: AT.toISOString(),
          subject: { kind: "digest", id: "dig_1" },
        },
      },
    ]);
  });

  it("freezes a message's status and reason beside extra facts", () => {
    expect(
      messageEmission("message.engaged", { id: "msg_1", status: "sent", status_reason: null }, AT, {
        engagement: "clicked",
      }),
    ).toEqual({
      type: "message.engaged",
      occurredAt: AT,
      subject: { kind: "message", id: "msg_1" },
      snapshot: { status: "sent", status_reason: null, engagement: "clicked" },
    });
  });

  test.each<[string, string | null]>([
    ["queued", "message.queued"],
    ["pending_approval", "message.pending_approval"],
    ["sent", "message.sent"],
    ["delivered", "message.delivered"],
    ["failed", "message.failed"],
    ["suppressed", "message.suppressed"],
    ["cancelled", "message.cancelled"],
    ["sending", null],
    ["draft", null],
  ])("status %s is reported as %s", (status, type) => {
    expect(messageEventTypeOf(status)).toBe(type);
  });
});
