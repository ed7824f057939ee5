import { createHash } from "node:crypto";
import { startHarness, type Harness } from "./service-harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness("keys_agents");
}, 60_000);
afterAll(() => h.close());

describe("/v1/api-keys", () => {
  it("creates a key, shows its secret once and stores only its SHA-256", async () => {
    const res = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "ci", scopes: ["events:write", "messages:read"] })
      .expect(201);
    expect(res.body).toMatchObject({
      name: "ci",
      scopes: ["events:write", "messages:read"],
      agent: null,
      revoked_at: null,
      expires_at: null,
    });
    expect(res.body.key).toMatch(/^svc_[0-9A-Za-z]{43}$/);
    expect(res.body.id).toMatch(/^key_[0-9A-Z]{26}$/);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 8));

    const row = await h.prisma.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row.hash).toBe(createHash("sha256").update(res.body.key).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(res.body.key);

    const read = await h.as().get(`/v1/api-keys/${res.body.id}`).expect(200);
    expect(read.body.key).toBeUndefined();
    await h
      .as(res.body.key)
      .get("/v1/messages")
      .expect((r) => expect(r.status).not.toBe(401));
  });

  it("revokes at once; revoking again is harmless; unknown ids are 404", async () => {
    const created = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "short-lived", scopes: ["messages:read"] })
      .expect(201);
    const revoked = await h.as().post(`/v1/api-keys/${created.body.id}/revoke`).expect(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const again = await h.as().post(`/v1/api-keys/${created.body.id}/revoke`).expect(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const refused = await h.as(created.body.key).get("/v1/messages").expect(401);
    expect(refused.body.detail).toBe("API key revoked");
    const missing = await h.as().post("/v1/api-keys/key_NOPE/revoke").expect(404);
    expect(missing.body.detail).toBe("no API key 'key_NOPE'");
  });

  it("rejects bad bodies with 422 and the exact errors", async () => {
    const res = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "", scopes: ["root"], extra: true })
      .expect(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ["body", "extra"], type: "additional_properties" }),
        expect.objectContaining({ loc: ["body", "name"] }),
        expect.objectContaining({ loc: ["body", "scopes", 0], type: "enum" }),
      ]),
    );
    const past = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "x", scopes: ["admin"], expires_at: "2000-01-01T00:00:00Z" })
      .expect(422);
    expect(past.body.errors).toEqual([
      { loc: ["body", "expires_at"], msg: "must be in the future", type: "value_error" },
    ]);
    const noAgent = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "x", scopes: ["events:write"], agent: "ghost" })
      .expect(422);
    expect(noAgent.body.detail).toBe("agent: no agent 'ghost'");
  });

  it("malformed JSON is 400 and an oversize body 413, both problem+json", async () => {
    const bad = await h
      .as()
      .post("/v1/api-keys")
      .set("Content-Type", "application/json")
      .send('{"name": ')
      .expect(400);
    expect(bad.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(bad.body.title).toBe("Bad request");
    const huge = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "x".repeat(300 * 1024), scopes: ["admin"] })
      .expect(413);
    expect(huge.body.title).toBe("Content too large");
  });

  it("lists newest first with a cursor", async () => {
    for (const name of ["page-a", "page-b", "page-c"]) {
      await h
        .as()
        .post("/v1/api-keys")
        .send({ name, scopes: ["messages:read"] })
        .expect(201);
    }
    const first = await h.as().get("/v1/api-keys?limit=2").expect(200);
    expect(first.body.items.map((k: { name: string }) => k.name)).toEqual(["page-c", "page-b"]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await h.as().get(`/v1/api-keys?limit=2&cursor=${first.body.next_cursor}`).expect(200);
    expect(second.body.items[0].name).toBe("page-a");
    const badCursor = await h.as().get("/v1/api-keys?cursor=garbage").expect(422);
    expect(badCursor.body.errors[0].loc).toEqual(["query", "cursor"]);
    await h.as().get("/v1/api-keys?limit=501").expect(422);
  });
});

describe("/v1/agents", () => {
  it("creates with the default fields, 409 on a duplicate key", async () => {
    const res = await h.as().post("/v1/agents").send({ key: "deploy-bot", name: "Deploy bot" }).expect(201);
    expect(res.body).toMatchObject({
      key: "deploy-bot",
      name: "Deploy bot",
      description: "",
      categories: null,
      frequency_caps: [{ period: "P1D", limit: 5 }],
      max_importance: "high",
      approval: null,
      approval_ttl_seconds: 86400,
      reviewers: [],
      enabled: true,
    });
    const dup = await h.as().post("/v1/agents").send({ key: "deploy-bot", name: "again" }).expect(409);
    expect(dup.body.detail).toBe("agent 'deploy-bot' already exists");
  });

  it("PUT replaces or creates, PATCH changes given fields, periods print as ISO 8601", async () => {
    const created = await h
      .as()
      .put("/v1/agents/triage")
      .send({ name: "Triage", frequency_caps: [{ period: 3600, limit: 2 }] })
      .expect(201);
    expect(created.body.frequency_caps).toEqual([{ period: "PT1H", limit: 2 }]);
    const replaced = await h
      .as()
      .put("/v1/agents/triage")
      .send({ name: "Triage 2", categories: ["transactional"] })
      .expect(200);
    expect(replaced.body).toMatchObject({
      name: "Triage 2",
      categories: ["transactional"],
      frequency_caps: [{ period: "P1D", limit: 5 }],
    });
    const patched = await h
      .as()
      .patch("/v1/agents/triage")
      .send({ approval: { "==": [{ var: "message.category" }, "marketing"] }, reviewers: ["ops-lead"] })
      .expect(200);
    expect(patched.body).toMatchObject({
      name: "Triage 2",
      categories: ["transactional"],
      reviewers: ["ops-lead"],
    });
    expect(patched.body.approval).toEqual({ "==": [{ var: "message.category" }, "marketing"] });
    const mismatch = await h.as().put("/v1/agents/triage").send({ key: "other", name: "x" }).expect(422);
    expect(mismatch.body.errors).toEqual([
      { loc: ["body", "key"], msg: "must equal the key in the path", type: "value_error" },
    ]);
  });

  it("validates periods, conditions and categories", async () => {
    const res = await h
      .as()
      .post("/v1/agents")
      .send({
        key: "bad-bot",
        name: "Bad",
        categories: ["nope"],
        approval: { regex: ["a", "b"] },
      })
      .expect(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { loc: ["body", "categories", 0], msg: "no category 'nope'", type: "value_error" },
        expect.objectContaining({ loc: ["body", "approval"], type: "value_error" }),
      ]),
    );
    const period = await h
      .as()
      .post("/v1/agents")
      .send({ key: "bad-bot", name: "Bad", frequency_caps: [{ period: "P1M", limit: 1 }] })
      .expect(422);
    expect(period.body.errors[0].loc).toEqual(["body", "frequency_caps", 0, "period"]);
  });

  it("DELETE is soft: 204, then 404 on reads, and the key cannot be reused", async () => {
    await h.as().post("/v1/agents").send({ key: "temp-bot", name: "Temp" }).expect(201);
    await h.as().delete("/v1/agents/temp-bot").expect(204);
    await h.as().get("/v1/agents/temp-bot").expect(404);
    await h.as().delete("/v1/agents/temp-bot").expect(404);
    const row = await h.prisma.agent.findUniqueOrThrow({ where: { key: "temp-bot" } });
    expect(row.deleted_at).not.toBeNull();
    await h.as().put("/v1/agents/temp-bot").send({ name: "again" }).expect(409);
    const list = await h.as().get("/v1/agents?limit=500").expect(200);
    expect(list.body.items.map((a: { key: string }) => a.key)).not.toContain("temp-bot");
  });
});
