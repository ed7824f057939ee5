import { startHarness, type Harness } from "./service-harness";

// Recipients over HTTP (docs/preferences.md; docs/agents.md, "What an agent key may never do"): profiles,
// addresses, preferences with their consent-ledger entry, and what each kind of key may do.

let h: Harness;
let clock = new Date("2030-01-01T00:00:00.000Z");
const tick = () => (clock = new Date(clock.getTime() + 1000));

beforeAll(async () => {
  h = await startHarness("recipients", { now: () => clock });
});
afterAll(() => h?.close());

const path = (externalId: string, rest = "") => `/v1/recipients/${encodeURIComponent(externalId)}${rest}`;
const noPreferences = { unsubscribed_categories: [], muted_channels: [], quiet_hours: null };

async function ledgerOf(externalId: string) {
  const recipient = await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: externalId } });
  const rows = await h.prisma.consentEntry.findMany({
    where: { recipient_id: recipient.id },
    orderBy: { created_at: "asc" },
  });
  return rows.map(({ source, provenance, changes }) => ({ source, provenance, changes }));
}

describe("profiles", () => {
  it("PUT creates (201) with the given fields, then updates (200) only the fields given", async () => {
    const createdAt = tick();
    const created = await h
      .as()
      .put(path("ann"))
      .send({
        locale: "de-AT",
        timezone: "Europe/Vienna",
        region: "AT",
        attributes: { plan: "pro", seats: 3 },
        addresses: [
          { channel: "email", value: "ann@example.com" },
          { channel: "sms", value: "+43123", enabled: false },
        ],
      });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      external_id: "ann",
      locale: "de-AT",
      timezone: "Europe/Vienna",
      region: "AT",
      attributes: { plan: "pro", seats: 3 },
      addresses: [
        { channel: "email", value: "ann@example.com", enabled: true },
        { channel: "sms", value: "+43123", enabled: false },
      ],
      preferences: noPreferences,
      created_at: createdAt.toISOString(),
      updated_at: createdAt.toISOString(),
    });

    const updatedAt = tick();
    const updated = await h
      .as()
      .put(path("ann"))
      .send({ locale: null, addresses: [{ channel: "push", value: "device-1" }] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      locale: null,
      timezone: "Europe/Vienna",
      region: "AT",
      attributes: { plan: "pro", seats: 3 },
      addresses: [{ channel: "push", value: "device-1", enabled: true }],
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
    });
    expect((await h.as().get(path("ann"))).body).toEqual(updated.body);
  });

  it("external ids are URL-encoded in paths and may hold any printable character", async () => {
    const id = "tenant/7 user#ü?";
    expect((await h.as().put(path(id)).send({})).status).toBe(201);
    const read = await h.as().get(path(id));
    expect(read.status).toBe(200);
    expect(read.body.external_id).toBe(id);
  });

  it("an unknown recipient is 404", async () => {
    const res = await h.as().get(path("nobody"));
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe("no recipient 'nobody'");
  });

  it.each([
    [
      "an unknown time zone and a duplicate address",
      {
        timezone: "Mars/Olympus",
        addresses: [
          { channel: "sms", value: "+1" },
          { channel: "sms", value: "+1" },
        ],
      },
      [
        { loc: ["body", "timezone"], msg: "unknown IANA time zone 'Mars/Olympus'", type: "value_error" },
        { loc: ["body", "addresses", 1], msg: "duplicate address", type: "value_error" },
      ],
    ],
    [
      "a bad locale, region and address, and an unknown field",
      { locale: "de_AT", region: "us-ca", addresses: [{ channel: "sms", value: "" }], external_id: "x" },
      [
        { loc: ["body", "external_id"], msg: "unknown field", type: "additional_properties" },
        {
          loc: ["body", "locale"],
          msg: 'must match pattern "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"',
          type: "pattern",
        },
        { loc: ["body", "region"], msg: 'must match pattern "^[A-Z]{2}(-[A-Z0-9]{1,3})?$"', type: "pattern" },
        {
          loc: ["body", "addresses", 0, "value"],
          msg: "must NOT have fewer than 1 characters",
          type: "min_length",
        },
      ],
    ],
  ])("PUT refuses %s (422) and stores nothing", async (_case, body, errors) => {
    const res = await h.as().put(path("refused")).send(body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(errors);
    expect((await h.as().get(path("refused"))).status).toBe(404);
  });

  it("an external id over 255 characters is 422", async () => {
    const res = await h.as().get(path("x".repeat(256)));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { loc: ["path", "external_id"], msg: "must NOT have more than 255 characters", type: "max_length" },
    ]);
  });

  it("lists newest first with a cursor", async () => {
    for (const id of ["l1", "l2", "l3"]) {
      tick();
      await h.as().put(path(id)).send({}).expect(201);
    }
    const first = await h.as().get("/v1/recipients").query({ limit: 2 });
    expect(first.status).toBe(200);
    expect(first.body.items.map((r: { external_id: string }) => r.external_id)).toEqual(["l3", "l2"]);
    const second = await h.as().get("/v1/recipients").query({ limit: 2, cursor: first.body.next_cursor });
    expect(second.body.items.map((r: { external_id: string }) => r.external_id)).toEqual([
      "l1",
      expect.any(String),
    ]);
    expect(second.body.next_cursor).toEqual(expect.any(String));
  });
});

describe("addresses", () => {
  beforeAll(async () => {
    await h
      .as()
      .put(path("bob"))
      .send({ addresses: [{ channel: "email", value: "bob@example.com" }] })
      .expect(201);
  });

  it("POST adds a new address (201); the same channel and value again only sets enabled (200)", async () => {
    const added = await h.as().post(path("bob", "/addresses")).send({ channel: "sms", value: "+1 555/0100" });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ channel: "sms", value: "+1 555/0100", enabled: true });

    const disabled = await h
      .as()
      .post(path("bob", "/addresses"))
      .send({ channel: "sms", value: "+1 555/0100", enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ channel: "sms", value: "+1 555/0100", enabled: false });

    const repeated = await h
      .as()
      .post(path("bob", "/addresses"))
      .send({ channel: "sms", value: "+1 555/0100" });
    expect(repeated.status).toBe(200);
    expect(repeated.body.enabled).toBe(false);

    expect((await h.as().get(path("bob"))).body.addresses).toEqual([
      { channel: "email", value: "bob@example.com", enabled: true },
      { channel: "sms", value: "+1 555/0100", enabled: false },
    ]);
  });

  it("DELETE removes an address (204); again it is 404", async () => {
    const url = path("bob", `/addresses/email/${encodeURIComponent("bob@example.com")}`);
    expect((await h.as().delete(url)).status).toBe(204);
    const again = await h.as().delete(url);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe("recipient 'bob' has no email address 'bob@example.com'");
    expect((await h.as().get(path("bob"))).body.addresses.map((a: { channel: string }) => a.channel)).toEqual(
      ["sms"],
    );
  });

  it("an unknown recipient is 404", async () => {
    expect(
      (await h.as().post(path("nobody", "/addresses")).send({ channel: "sms", value: "+1" })).status,
    ).toBe(404);
    expect((await h.as().delete(path("nobody", "/addresses/sms/1"))).status).toBe(404);
  });
});

describe("preferences", () => {
  beforeAll(async () => {
    await h.as().put(path("cid")).send({}).expect(201);
  });

  it("PUT applies the change and writes one consent-ledger entry (source api, the key's id)", async () => {
    const writer = await h.keyWith(["recipients:write"]);
    const body = {
      unsubscribed_categories: ["marketing"],
      muted_channels: ["sms"],
      quiet_hours: { start: "22:00", end: "07:00" },
    };
    const res = await h.as(writer).put(path("cid", "/preferences")).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect((await h.as().get(path("cid"))).body.preferences).toEqual(body);
    expect(await ledgerOf("cid")).toEqual([
      {
        source: "api",
        provenance: { method: "api", api_key: h.keyIdOf(writer) },
        changes: {
          unsubscribed_categories: { added: ["marketing"], removed: [] },
          muted_channels: { added: ["sms"], removed: [] },
          quiet_hours: { from: null, to: { start: "22:00", end: "07:00" } },
        },
      },
    ]);

    // The same preferences again change nothing and record nothing; a real change records only itself.
    await h.as(writer).put(path("cid", "/preferences")).send(body).expect(200);
    const cleared = await h
      .as()
      .put(path("cid", "/preferences"))
      .send({ quiet_hours: null, muted_channels: [] });
    expect(cleared.body).toEqual({
      unsubscribed_categories: ["marketing"],
      muted_channels: [],
      quiet_hours: null,
    });
    const ledger = await ledgerOf("cid");
    expect(ledger).toHaveLength(2);
    expect(ledger[1]).toEqual({
      source: "api",
      provenance: { method: "api", api_key: h.adminKeyId },
      changes: {
        muted_channels: { added: [], removed: ["sms"] },
        quiet_hours: { from: { start: "22:00", end: "07:00" }, to: null },
      },
    });
  });

  it.each([
    [
      "an unknown category and one that does not allow unsubscribing",
      { unsubscribed_categories: ["marketing", "nope", "transactional"] },
      [
        { loc: ["body", "unsubscribed_categories", 1], msg: "no category 'nope'", type: "value_error" },
        {
          loc: ["body", "unsubscribed_categories", 2],
          msg: "category 'transactional' does not allow unsubscribing",
          type: "value_error",
        },
      ],
    ],
    [
      "quiet hours that are not HH:MM",
      { quiet_hours: { start: "24:00", end: "7:00" } },
      [
        {
          loc: ["body", "quiet_hours", "start"],
          msg: 'must match pattern "^([01][0-9]|2[0-3]):[0-5][0-9]$"',
          type: "pattern",
        },
        {
          loc: ["body", "quiet_hours", "end"],
          msg: 'must match pattern "^([01][0-9]|2[0-3]):[0-5][0-9]$"',
          type: "pattern",
        },
      ],
    ],
  ])("refuses %s (422) and records nothing", async (_case, body, errors) => {
    await h.as().put(path("dee")).send({});
    const res = await h.as().put(path("dee", "/preferences")).send(body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(errors);
    expect(await ledgerOf("dee")).toEqual([]);
  });

  it("an unknown recipient is 404", async () => {
    expect((await h.as().put(path("nobody", "/preferences")).send({ muted_channels: [] })).status).toBe(404);
  });
});

describe("keys", () => {
  beforeAll(async () => {
    await h
      .as()
      .put(path("eve"))
      .send({ addresses: [{ channel: "sms", value: "+1" }] })
      .expect(201);
    await h
      .as()
      .put(path("eve", "/preferences"))
      .send({ muted_channels: ["email"] })
      .expect(200);
  });

  it("an agent-bound key with recipients:read sees profiles without preferences", async () => {
    const agentKey = await h.keyWith(["recipients:read"], "helper");
    const one = await h.as(agentKey).get(path("eve"));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      external_id: "eve",
      locale: null,
      timezone: null,
      region: null,
      attributes: {},
      addresses: [{ channel: "sms", value: "+1", enabled: true }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const page = await h.as(agentKey).get("/v1/recipients").query({ limit: 500 });
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBeGreaterThan(0);
    expect(page.body.items.filter((r: object) => "preferences" in r)).toEqual([]);
  });

  it("an agent-bound key may write nothing about people (403)", async () => {
    const agentKey = await h.keyWith(["recipients:read", "recipients:write"], "helper");
    const writes = [
      h.as(agentKey).put(path("eve")).send({ locale: "en" }),
      h.as(agentKey).put(path("new-one")).send({}),
      h.as(agentKey).post(path("eve", "/addresses")).send({ channel: "sms", value: "+2" }),
      h.as(agentKey).delete(path("eve", "/addresses/sms/%2B1")),
      h.as(agentKey).put(path("eve", "/preferences")).send({ muted_channels: [] }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect(res.body.detail).toBe("agent keys may not change recipients");
    }
    const eve = await h.as().get(path("eve"));
    expect(eve.body).toMatchObject({
      locale: null,
      addresses: [{ channel: "sms", value: "+1", enabled: true }],
      preferences: { muted_channels: ["email"] },
    });
    expect((await h.as().get(path("new-one"))).status).toBe(404);
  });

  it.each([
    ["GET one", ["messages:read"], "get", path("eve"), "recipients:read"],
    ["GET the list", ["recipients:write"], "get", "/v1/recipients", "recipients:read"],
    ["PUT", ["recipients:read"], "put", path("eve"), "recipients:write"],
    ["POST an address", ["recipients:read"], "post", path("eve", "/addresses"), "recipients:write"],
    ["DELETE an address", ["recipients:read"], "delete", path("eve", "/addresses/sms/1"), "recipients:write"],
    [
      "PUT preferences",
      ["recipients:read", "events:write"],
      "put",
      path("eve", "/preferences"),
      "recipients:write",
    ],
  ] as const)("%s without its scope is 403", async (_case, scopes, method, url, scope) => {
    const key = await h.keyWith([...scopes]);
    const agent = h.as(key);
    const res = await agent[method](url).send(method === "get" || method === "delete" ? undefined : {});
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe(`this API key lacks the scope '${scope}'`);
  });
});
