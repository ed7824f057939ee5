import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { $transaction } from "../../../transaction";
import { findEventsOfPerson } from "../../events/event-erasure";
import { findMessagesOfPerson } from "../../messages/message-erasure";
import {
  createPreferenceTokens,
  findRecipientIdByPreferenceTokenHash,
  findRecipientWithAddresses,
  insertRecipient,
  replaceAddresses,
  replacePreferenceToken,
  updateRecipientPreferences,
  findNumbersSharedWithOthers,
} from "..";

// The recipient repository against the real schema: what its functions decide themselves.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("store_recipients");
  await $transaction(db.prisma, async (tx) => {
    await insertRecipient(tx, { id: "rcp_ann", external_id: "ann", profile: { locale: "de" }, now: NOW });
    await insertRecipient(tx, { id: "rcp_bob", external_id: "bob", profile: {}, now: NOW });
  });
});
afterAll(() => db.drop());

test("replaced addresses read back in the given order, even on one channel", async () => {
  const given = [
    { channel: "sms", value: "+15550002", enabled: true },
    { channel: "email", value: "ann@example.com", enabled: false },
    { channel: "sms", value: "+15550001", enabled: true },
  ];
  await $transaction(db.prisma, (tx) => replaceAddresses(tx, "rcp_ann", given, NOW));
  const ann = await findRecipientWithAddresses(db.prisma, "ann");
  const read = [...ann!.addresses].sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  expect(read.map(({ channel, value, enabled }) => ({ channel, value, enabled }))).toEqual(given);

  await $transaction(db.prisma, (tx) => replaceAddresses(tx, "rcp_ann", [], NOW));
  expect((await findRecipientWithAddresses(db.prisma, "ann"))!.addresses).toEqual([]);
});

test("numbers shared with someone else are told apart from the person's own", async () => {
  await $transaction(db.prisma, async (tx) => {
    await replaceAddresses(
      tx,
      "rcp_ann",
      [
        { channel: "sms", value: "+15550010", enabled: true },
        { channel: "sms", value: "+15550011", enabled: true },
      ],
      NOW,
    );
    // The same number, written another way: compared in E.164.
    await replaceAddresses(tx, "rcp_bob", [{ channel: "sms", value: "+1 555 0011", enabled: true }], NOW);
  });
  expect(await findNumbersSharedWithOthers(db.prisma, ["+15550010", "+15550011"], "rcp_ann")).toEqual([
    "+15550011",
  ]);
});

test("quiet hours set to null are stored as SQL NULL; absent fields stay as they were", async () => {
  const write = (fields: Parameters<typeof updateRecipientPreferences>[2]) =>
    $transaction(db.prisma, (tx) => updateRecipientPreferences(tx, "rcp_ann", fields, NOW));
  await write({ quiet_hours: { start: "22:00", end: "07:00" }, muted_channels: ["sms"] });
  await write({ unsubscribed_categories: ["news"] });
  let ann = await findRecipientWithAddresses(db.prisma, "ann");
  expect(ann).toMatchObject({
    quiet_hours: { start: "22:00", end: "07:00" },
    muted_channels: ["sms"],
    unsubscribed_categories: ["news"],
  });
  await write({ quiet_hours: null });
  ann = await findRecipientWithAddresses(db.prisma, "ann");
  expect(ann?.quiet_hours).toBeNull();
  const [row] = await db.prisma.$queryRaw<{ is_null: boolean }[]>`
    SELECT quiet_hours IS NULL AS is_null FROM recipients WHERE id = 'rcp_ann'`;
  expect(row?.is_null).toBe(true);
});

test("the first preference token stays: a second creation returns the stored nonce", async () => {
  const token = (nonce: string) => ({ recipientId: "rcp_bob", nonce, tokenHash: `h${nonce}` });
  expect(await createPreferenceTokens(db.prisma, [token("1")], NOW)).toEqual([
    { recipient_id: "rcp_bob", nonce: "1" },
  ]);
  expect(await createPreferenceTokens(db.prisma, [token("2")], NOW)).toEqual([
    { recipient_id: "rcp_bob", nonce: "1" },
  ]);
  expect(await findRecipientIdByPreferenceTokenHash(db.prisma, "h2")).toBeNull();
  // A person who is gone gets none (delivery's re-check stops their message anyway).
  expect(
    await createPreferenceTokens(db.prisma, [{ recipientId: "rcp_gone", nonce: "g", tokenHash: "hg" }], NOW),
  ).toEqual([]);

  await replacePreferenceToken(db.prisma, "rcp_bob", { nonce: "3", token_hash: "h3", created_at: NOW });
  expect(await findRecipientIdByPreferenceTokenHash(db.prisma, "h1")).toBeNull();
  expect(await findRecipientIdByPreferenceTokenHash(db.prisma, "h3")).toBe("rcp_bob");
});

test("erasure finds a person's rows by either id, and by the external id alone when no row exists", async () => {
  const event = (id: string, externalId: string, recipientId: string | null) =>
    db.prisma.event.create({
      data: {
        id,
        name: "order.shipped",
        sender: "backend",
        recipient_external_id: externalId,
        recipient_id: recipientId,
        data: {},
        status: recipientId ? "processed" : "pending",
        created_at: NOW,
      },
    });
  await event("evt_ingested", "ann", "rcp_ann");
  await event("evt_accepted", "ann", null);
  await event("evt_other", "bob", "rcp_bob");
  await event("evt_ghost", "ghost", null);
  await db.prisma.eventOutcome.create({
    data: { event_id: "evt_ingested", rule_key: "ship", position: 0, matched: true },
  });

  const ann = await $transaction(db.prisma, (tx) =>
    findEventsOfPerson(tx, { recipientId: "rcp_ann", externalId: "ann" }),
  );
  expect(ann.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
    { id: "evt_accepted", ruleKeys: [] },
    { id: "evt_ingested", ruleKeys: ["ship"] },
  ]);
  const ghost = await $transaction(db.prisma, (tx) =>
    findEventsOfPerson(tx, { recipientId: null, externalId: "ghost" }),
  );
  expect(ghost).toEqual([{ id: "evt_ghost", ruleKeys: [] }]);
  expect(
    await $transaction(db.prisma, (tx) =>
      findMessagesOfPerson(tx, { recipientId: null, externalId: "ghost" }),
    ),
  ).toEqual([]);
});
