import { webhookEventsIn } from "@svc/testkit";
import {
  digestPolicy,
  makeDigestRule,
  makeRecipient,
  makeTemplate,
  NOW,
  openDigestOf,
  startDigestWorld,
  type World,
} from "./digest-fixtures";

// A digest sent writes `digest.sent` (docs/webhooks.md) with the message it became, beside that
// message's own `message.queued`, in the closing transaction; a close that loses writes nothing.

let w: World;

beforeAll(async () => {
  w = await startDigestWorld("digest_webhook_events");
  await makeTemplate(w.prisma, "list", { title: "{{ data.count }} updates", body: "{{ data.key }}" });
});
afterAll(() => w.stop());

it("closing writes digest.sent and message.queued; closing again writes nothing", async () => {
  await makeRecipient(w.prisma, "ann");
  await makeDigestRule(w.prisma, {
    key: "window",
    event: "n.window",
    template: "list",
    digest: digestPolicy(),
  });
  w.clock.set(NOW);
  await w.event("n.window", "ann", { n: 1 });
  const digest = await openDigestOf(w.prisma, "window");
  w.clock.set(digest.closes_at);
  await w.prisma.$executeRaw`DELETE FROM outbox`;
  const result = await w.closeDigest(digest.id);
  expect(result).toMatchObject({ status: "sent", messageStatus: "queued" });
  const messageId = (result as { messageId: string }).messageId;
  const at = digest.closes_at.toISOString();
  expect(await webhookEventsIn(w.prisma)).toEqual([
    {
      type: "message.queued",
      occurred_at: at,
      subject: { kind: "message", id: messageId },
      snapshot: { status: "queued", status_reason: null },
    },
    {
      type: "digest.sent",
      occurred_at: at,
      subject: { kind: "digest", id: digest.id },
      snapshot: { status: "sent", sent_at: at, message_id: messageId },
    },
  ]);
  expect(await w.closeDigest(digest.id)).toMatchObject({ status: "skipped" });
  expect(await webhookEventsIn(w.prisma)).toHaveLength(2);
});
