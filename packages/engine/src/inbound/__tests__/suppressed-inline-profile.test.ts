import { parseConfig } from "@svc/config";
import { sha256Hex } from "@svc/core";
import { ingestEvent } from "../../ingest/ingest-event";
import {
  makeRule,
  makeTemplate,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "../../ingest/__tests__/ingest-fixtures";

// A number on the suppression list (a STOP, docs/texting.md "STOP and START") reaches an event's
// inline profile too: the person is created muted for texts, so composition finds no text channel.

let env: IngestTestEnv;

beforeAll(async () => {
  env = await startIngestEnv("inbound_inline_profile");
  env.deps.config = parseConfig({
    channels: { email: { provider: "console" }, sms: { provider: "console" } },
    compliance: { sms_channels: ["sms"] },
  });
  await makeTemplate(env.db.prisma, "tpl");
  await makeRule(env.db.prisma, { key: "promo", event: "promo", channels: ["sms"] });
  await env.db.prisma.smsSuppression.create({
    data: { phone_sha256: sha256Hex("+15550100001"), keyword: "quit" },
  });
});
afterAll(() => env.close());

test("an inline profile with a suppressed number: texts muted, the message has no reachable channel", async () => {
  const id = await postEvent(env.accept, {
    name: "promo",
    recipient: { external_id: "kim", addresses: [{ channel: "sms", value: "+1 555 010 0001" }] },
    data: {},
  });
  expect((await ingestEvent(env.deps, id)).status).toBe("processed");
  const kim = await env.db.prisma.recipient.findUniqueOrThrow({ where: { external_id: "kim" } });
  expect(kim.muted_channels).toEqual(["sms"]);
  const entries = await env.db.prisma.consentEntry.findMany({ where: { recipient_id: kim.id } });
  expect(entries.map((e) => [e.source, e.provenance])).toEqual([
    ["sms_keyword", { method: "suppression_list", keyword: "quit", number: "+15550100001" }],
  ]);
  const message = await env.db.prisma.message.findFirstOrThrow({ where: { recipient_id: kim.id } });
  expect(message).toMatchObject({ status: "suppressed", status_reason: "no_reachable_channel" });
});
