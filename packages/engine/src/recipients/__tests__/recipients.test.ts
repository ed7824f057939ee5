import { parseConfig } from "@svc/config";
import { AppError, sha256Hex, type Principal } from "@svc/core";
import { createTestDatabase, webhookEventsIn, type TestDatabase } from "@svc/testkit";
import { putPreferences } from "../preferences";
import { addAddress, getRecipient, listRecipients, putRecipient, removeAddress } from "../recipients";

// People as the API writes them (docs/preferences.md "People", "Addresses", the preferences table
// and "Consent ledger"; docs/texting.md "STOP and START" for the suppression list): PUT creates or
// updates only the given fields, addresses are checked against their channel's provider, agent
// keys write nothing about people and never see preferences, and every preference change is
// written to the ledger once.

const START = new Date("2030-01-01T00:00:00.000Z");

let db: TestDatabase;
let clock: Date;
const tick = () => (clock = new Date(clock.getTime() + 1000));
const config = parseConfig(
  {
    channels: {
      email: { provider: "smtp", host: "127.0.0.1", port: 9, from: "Shop <noreply@shop.example>" },
      sms: { provider: "console" },
      push: { provider: "console" },
    },
    compliance: { sms_channels: ["sms"] },
  },
  {},
);
const backend: Principal = { keyId: "key_backend", keyName: "backend", scopes: ["admin"], agentKey: null };
const agentKey: Principal = {
  keyId: "key_agent",
  keyName: "helper",
  scopes: ["recipients:read", "recipients:write"],
  agentKey: "helper",
};
const deps = () => ({ prisma: db.prisma, config, now: () => clock });

beforeAll(async () => {
  db = await createTestDatabase("engine_recipients");
  await db.prisma.category.create({ data: { key: "news", allow_unsubscribe: true } });
});
afterAll(() => db.drop());
beforeEach(() => {
  clock = START;
});

const ledgerOf = async (externalId: string) => {
  const { id } = await db.prisma.recipient.findUniqueOrThrow({ where: { external_id: externalId } });
  const rows = await db.prisma.consentEntry.findMany({ where: { recipient_id: id }, orderBy: { id: "asc" } });
  return rows.map(({ source, changes, provenance }) => ({ source, changes, provenance }));
};

/** The preferences a backend key reads (agent keys get a view without them). */
async function preferencesOf(externalId: string) {
  const view = await getRecipient(deps(), backend, externalId);
  if (!("preferences" in view)) throw new Error("a backend key reads preferences");
  return view.preferences;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("putRecipient", () => {
  test("creates with the given fields, then changes only the fields given; null clears, addresses replace", async () => {
    const createdAt = tick();
    const created = await putRecipient(deps(), backend, "ann", {
      locale: "de-AT",
      timezone: "Europe/Vienna",
      region: "AT",
      attributes: { plan: "pro", seats: 3 },
      addresses: [
        { channel: "email", value: "ann@example.com" },
        { channel: "sms", value: "+43 660 1234567", enabled: false },
      ],
    });
    expect(created).toEqual({
      created: true,
      recipient: {
        external_id: "ann",
        locale: "de-AT",
        timezone: "Europe/Vienna",
        region: "AT",
        attributes: { plan: "pro", seats: 3 },
        addresses: [
          { channel: "email", value: "ann@example.com", enabled: true },
          { channel: "sms", value: "+43 660 1234567", enabled: false },
        ],
        preferences: { unsubscribed_categories: [], muted_channels: [], quiet_hours: null },
        created_at: createdAt.toISOString(),
        updated_at: createdAt.toISOString(),
      },
    });
    const updatedAt = tick();
    const updated = await putRecipient(deps(), backend, "ann", {
      locale: null,
      attributes: { plan: "free" },
      addresses: [{ channel: "push", value: "device-1" }],
    });
    expect(updated.created).toBe(false);
    expect(updated.recipient).toMatchObject({
      locale: null,
      timezone: "Europe/Vienna", // not given: kept
      region: "AT",
      attributes: { plan: "free" }, // the whole object replaced
      addresses: [{ channel: "push", value: "device-1", enabled: true }],
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
    });
    const row = await db.prisma.recipient.findUniqueOrThrow({
      where: { external_id: "ann" },
      include: { addresses: true },
    });
    expect(row.addresses.map((a) => [a.channel, a.value])).toEqual([["push", "device-1"]]);
    // A profile write is no preference change: nothing in the ledger.
    expect(await ledgerOf("ann")).toEqual([]);
  });

  test("every problem in one 422 (zone, duplicate, addresses the channel cannot deliver to); nothing written", async () => {
    const error = await refusal(
      putRecipient(deps(), backend, "bad", {
        timezone: "Mars/Olympus",
        addresses: [
          { channel: "email", value: "me@example.com, victim@example.org" },
          { channel: "sms", value: "call me" },
          { channel: "push", value: "x" },
          { channel: "push", value: "x" },
          { channel: "pager", value: "any text at all" },
        ],
      }),
    );
    expect(error).toMatchObject({ code: "validation", status: 422 });
    expect(error.errors!.map((issue) => [issue.loc, issue.type])).toEqual([
      [["body", "timezone"], "value_error"],
      [["body", "addresses", 3], "value_error"],
      [["body", "addresses", 0, "value"], "value_error"],
      [["body", "addresses", 1, "value"], "value_error"],
    ]);
    expect(error.errors![2]!.msg).toMatch(/^email address "me@example.com, victim@example.org" /);
    expect(await db.prisma.recipient.findUnique({ where: { external_id: "bad" } })).toBeNull();
  });

  // docs/preferences.md "People": PUT creates the person or updates their profile. Concurrent first
  // PUTs of one new external id serialise on the person's lock (recipients.ts), so one creates it
  // and the others update it; four writers raced in nearly every round before the lock.
  test("concurrent first writes of one new person: one creates it, the others update it", async () => {
    for (let round = 0; round < 5; round++) {
      const externalId = `racer-${round}`;
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) =>
          putRecipient(deps(), backend, externalId, { attributes: { writer: i } }),
        ),
      );
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      const created = results.map((r) => r.status === "fulfilled" && r.value.created);
      expect(created.filter(Boolean)).toHaveLength(1);
      expect(await db.prisma.recipient.count({ where: { external_id: externalId } })).toBe(1);
    }
  });
});

describe("reads", () => {
  test("getRecipient: 404 for an unknown person; agent keys read profiles without preferences", async () => {
    await putRecipient(deps(), backend, "bea", {
      addresses: [{ channel: "email", value: "bea@example.com" }],
    });
    await putPreferences(deps(), backend, "bea", { muted_channels: ["sms"] });
    expect(await preferencesOf("bea")).toEqual({
      unsubscribed_categories: [],
      muted_channels: ["sms"],
      quiet_hours: null,
    });
    const seenByAgent = await getRecipient(deps(), agentKey, "bea");
    expect(seenByAgent).not.toHaveProperty("preferences");
    expect(seenByAgent).toMatchObject({
      external_id: "bea",
      addresses: [{ channel: "email", value: "bea@example.com" }],
    });
    expect(await refusal(getRecipient(deps(), backend, "nobody"))).toMatchObject({
      code: "not_found",
      status: 404,
    });
  });

  test("listRecipients: newest first, paged by cursor without repeats", async () => {
    clock = new Date("2031-01-01T00:00:00.000Z"); // after every other person of this file
    for (const id of ["p1", "p2", "p3"]) {
      tick();
      await putRecipient(deps(), backend, id, {});
    }
    const first = await listRecipients(deps(), backend, { limit: 2 });
    expect(first.items.map((r) => r.external_id)).toEqual(["p3", "p2"]);
    const second = await listRecipients(deps(), agentKey, { limit: 2, cursor: first.next_cursor! });
    expect(second.items[0]!.external_id).toBe("p1");
    expect(second.items.filter((r) => "preferences" in r)).toEqual([]);
  });
});

describe("addresses", () => {
  test("addAddress: new is created; an existing one only changes `enabled` (kept when not given)", async () => {
    await putRecipient(deps(), backend, "cid", {});
    expect(await addAddress(deps(), backend, "cid", { channel: "email", value: "cid@example.com" })).toEqual({
      created: true,
      address: { channel: "email", value: "cid@example.com", enabled: true },
    });
    expect(
      await addAddress(deps(), backend, "cid", {
        channel: "email",
        value: "cid@example.com",
        enabled: false,
      }),
    ).toEqual({ created: false, address: { channel: "email", value: "cid@example.com", enabled: false } });
    expect(await addAddress(deps(), backend, "cid", { channel: "email", value: "cid@example.com" })).toEqual({
      created: false,
      address: { channel: "email", value: "cid@example.com", enabled: false },
    });
    const bad = await refusal(addAddress(deps(), backend, "cid", { channel: "sms", value: "12" }));
    expect(bad).toMatchObject({ code: "validation", status: 422 });
    expect(bad.errors!.map((e) => e.loc)).toEqual([["body", "value"]]);
    expect(
      await refusal(addAddress(deps(), backend, "nobody", { channel: "push", value: "x" })),
    ).toMatchObject({
      code: "not_found",
    });
    expect(await db.prisma.address.count({ where: { recipient: { external_id: "cid" } } })).toBe(1);
  });

  test("removeAddress takes any stored value; removing it again is 404", async () => {
    await putRecipient(deps(), backend, "dot", {});
    // Written before today's rules: not one mailbox, still removable.
    const { id } = await db.prisma.recipient.findUniqueOrThrow({ where: { external_id: "dot" } });
    await db.prisma.address.create({ data: { recipient_id: id, channel: "email", value: "a@x, b@y" } });
    await removeAddress(deps(), backend, "dot", "email", "a@x, b@y");
    expect(await db.prisma.address.count({ where: { recipient_id: id } })).toBe(0);
    expect(await refusal(removeAddress(deps(), backend, "dot", "email", "a@x, b@y"))).toMatchObject({
      code: "not_found",
      status: 404,
    });
  });

  test("a number a STOP put on the suppression list mutes the new owner's texts, with its ledger entry", async () => {
    await db.prisma.smsSuppression.create({
      data: { phone_sha256: sha256Hex("+15550001111"), keyword: "stop" },
    });
    await putRecipient(deps(), backend, "eli", {
      addresses: [{ channel: "sms", value: "+1 (555) 000-1111" }],
    });
    await putRecipient(deps(), backend, "fay", {});
    await addAddress(deps(), backend, "fay", { channel: "sms", value: "001 555 000 1111" });
    for (const who of ["eli", "fay"]) {
      expect((await preferencesOf(who)).muted_channels).toEqual(["sms"]);
      expect(await ledgerOf(who)).toEqual([
        {
          source: "sms_keyword",
          changes: { muted_channels: { added: ["sms"], removed: [] } },
          provenance: { method: "suppression_list", keyword: "stop", number: "+15550001111" },
        },
      ]);
    }
    // Another channel with the same value is no text number.
    await putRecipient(deps(), backend, "gil", { addresses: [{ channel: "push", value: "+15550001111" }] });
    expect((await preferencesOf("gil")).muted_channels).toEqual([]);
  });
});

describe("putPreferences", () => {
  test("writes the change and one ledger entry (source api) with its webhook event; the same again writes nothing", async () => {
    await putRecipient(deps(), backend, "hal", {});
    const at = tick();
    const answer = await putPreferences(deps(), backend, "hal", {
      unsubscribed_categories: ["news", "news"],
      quiet_hours: { start: "22:00", end: "07:00" },
    });
    expect(answer).toEqual({
      unsubscribed_categories: ["news"],
      muted_channels: [],
      quiet_hours: { start: "22:00", end: "07:00" },
    });
    const changes = {
      unsubscribed_categories: { added: ["news"], removed: [] },
      quiet_hours: { from: null, to: { start: "22:00", end: "07:00" } },
    };
    expect(await ledgerOf("hal")).toEqual([
      { source: "api", changes, provenance: { method: "api", api_key: "key_backend" } },
    ]);
    const { id } = await db.prisma.recipient.findUniqueOrThrow({ where: { external_id: "hal" } });
    expect((await webhookEventsIn(db.prisma, id)).map((e) => [e.type, e.occurred_at])).toEqual([
      ["recipient.preferences_changed", at.toISOString()],
    ]);
    tick();
    await putPreferences(deps(), backend, "hal", {
      unsubscribed_categories: ["news"],
      quiet_hours: { end: "07:00", start: "22:00" },
    });
    expect(await ledgerOf("hal")).toHaveLength(1);
    // null returns quiet hours to the default: a change.
    await putPreferences(deps(), backend, "hal", { quiet_hours: null });
    expect((await ledgerOf("hal"))[1]!.changes).toEqual({
      quiet_hours: { from: { start: "22:00", end: "07:00" }, to: null },
    });
  });

  test("categories must exist and allow unsubscribing (422 at each); unknown person 404; agent keys 403", async () => {
    await putRecipient(deps(), backend, "ida", {});
    const error = await refusal(
      putPreferences(deps(), backend, "ida", {
        unsubscribed_categories: ["marketing", "nope", "transactional"],
      }),
    );
    expect(error).toMatchObject({ code: "validation", status: 422 });
    expect(error.errors).toEqual([
      { loc: ["body", "unsubscribed_categories", 1], msg: "no category 'nope'", type: "value_error" },
      {
        loc: ["body", "unsubscribed_categories", 2],
        msg: "category 'transactional' does not allow unsubscribing",
        type: "value_error",
      },
    ]);
    expect(await ledgerOf("ida")).toEqual([]);
    expect(await refusal(putPreferences(deps(), backend, "nobody", { muted_channels: [] }))).toMatchObject({
      code: "not_found",
    });
    for (const write of [
      () => putPreferences(deps(), agentKey, "ida", { muted_channels: ["sms"] }),
      () => putRecipient(deps(), agentKey, "ida", { locale: "en" }),
      () => putRecipient(deps(), agentKey, "brand-new", {}),
      () => addAddress(deps(), agentKey, "ida", { channel: "push", value: "y" }),
      () => removeAddress(deps(), agentKey, "ida", "push", "y"),
    ])
      expect(await refusal(write())).toMatchObject({ code: "forbidden", status: 403 });
    expect(await db.prisma.recipient.findUnique({ where: { external_id: "brand-new" } })).toBeNull();
    expect((await getRecipient(deps(), backend, "ida")).locale).toBeNull();
  });
});
