import request from "supertest";
import { testApp } from "./test-app";

// Request validation and body parsing: every failure is a problem+json with exact fields.

const KEY = { Authorization: "Bearer test" };
const { app } = testApp();

describe("request validation -> 422 with errors", () => {
  it.each([
    [
      "wrong type",
      "/test/echo/1",
      { name: 5 },
      [{ loc: ["body", "name"], msg: "must be string", type: "type" }],
    ],
    [
      "unknown field",
      "/test/echo/1",
      { name: "a", extra: true },
      [{ loc: ["body", "extra"], msg: "unknown field", type: "additional_properties" }],
    ],
    [
      "missing field",
      "/test/echo/1",
      { kind: "a" },
      [{ loc: ["body", "name"], msg: "is required", type: "missing" }],
    ],
    [
      "enum",
      "/test/echo/1",
      { name: "a", kind: "c" },
      [{ loc: ["body", "kind"], msg: "must be equal to one of the allowed values: a, b", type: "enum" }],
    ],
    [
      "format inside an array",
      "/test/echo/1",
      { name: "a", emails: ["x@example.com", "nope"] },
      [{ loc: ["body", "emails", 1], msg: 'must match format "email"', type: "format" }],
    ],
    [
      "max length",
      "/test/echo/1",
      { name: "abcdefghijk" },
      [{ loc: ["body", "name"], msg: "must NOT have more than 10 characters", type: "max_length" }],
    ],
    [
      "query maximum",
      "/test/echo/1?limit=501",
      { name: "a" },
      [{ loc: ["query", "limit"], msg: "must be <= 500", type: "maximum" }],
    ],
    [
      "query type",
      "/test/echo/1?limit=x",
      { name: "a" },
      [{ loc: ["query", "limit"], msg: "must be integer", type: "type" }],
    ],
    [
      "path type",
      "/test/echo/abc",
      { name: "a" },
      [{ loc: ["path", "id"], msg: "must be integer", type: "type" }],
    ],
    [
      "unknown query parameter listed with the other issues",
      "/test/echo/1?foo=1&limit=0",
      { name: 1 },
      [
        { loc: ["query", "foo"], msg: "unknown parameter", type: "additional_properties" },
        { loc: ["query", "limit"], msg: "must be >= 1", type: "minimum" },
        { loc: ["body", "name"], msg: "must be string", type: "type" },
      ],
    ],
  ])("%s", async (_case, path, body, errors) => {
    const res = await request(app).post(path).set(KEY).send(body);
    expect(res.status).toBe(422);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Unprocessable content",
      status: 422,
      detail: `Request validation failed: ${errors.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ")}`,
      instance: path.split("?")[0],
      errors,
    });
  });

  it("lists every issue of one request", async () => {
    const res = await request(app)
      .post("/test/echo/11")
      .set(KEY)
      .send({ name: 1, kind: "z", x: 1, y: 2, z: 3 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(6);
    expect(res.body.detail).toMatch(/ \(and 1 more\)$/);
  });

  it("a required body that is absent is a missing body", async () => {
    const res = await request(app).post("/test/echo/1").set(KEY);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ["body"], msg: "is required", type: "missing" }]);
  });

  it("passes valid requests with coerced query values", async () => {
    const res = await request(app).post("/test/echo/1?limit=7").set(KEY).send({ name: "a", kind: "b" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "a", kind: "b", limit: 7 });
  });
});

describe("body parsing and media types", () => {
  it("malformed JSON is 400 with the parser's reason", async () => {
    const res = await request(app)
      .post("/test/echo/1")
      .set(KEY)
      .set("Content-Type", "application/json")
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Bad request",
      status: 400,
      detail: expect.stringMatching(/^Malformed JSON in request body: .*JSON/),
      instance: "/test/echo/1",
    });
  });

  it("a body over api.max_body_bytes is 413", async () => {
    const res = await request(app)
      .post("/test/echo/1")
      .set(KEY)
      .send({ name: "x".repeat(200) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Content too large",
      status: 413,
      detail: "Request body is larger than the limit of 100 bytes",
      instance: "/test/echo/1",
    });
  });

  it("broadcasts take up to api.max_broadcast_body_bytes", async () => {
    const ok = await request(app)
      .post("/v1/broadcasts")
      .send({ text: "x".repeat(500) });
    expect(ok.status).toBe(200);
    const tooLarge = await request(app)
      .post("/v1/broadcasts")
      .send({ text: "x".repeat(1200) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.detail).toBe("Request body is larger than the limit of 1000 bytes");
  });

  it("a wrong content type is 415 naming the expected one", async () => {
    const res = await request(app)
      .post("/test/echo/1")
      .set(KEY)
      .set("Content-Type", "text/plain")
      .send("name=a");
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Unsupported media type",
      status: 415,
      detail: "Unsupported media type text/plain; send application/json",
      instance: "/test/echo/1",
    });
  });
});

describe("routing", () => {
  it("an unknown route is a 404 problem", async () => {
    const res = await request(app).get("/v1/nothing-here?x=1");
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Not found",
      status: 404,
      detail: "No endpoint at GET /v1/nothing-here",
      instance: "/v1/nothing-here",
    });
  });

  it("a known path with another method is a 405 problem with Allow", async () => {
    const res = await request(app).delete("/healthz");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET");
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Method not allowed",
      status: 405,
      detail: "DELETE is not allowed on /healthz",
      instance: "/healthz",
    });
  });

  it("a documented operation without a handler is a 404 problem", async () => {
    const res = await request(app).get("/test/unimplemented");
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe("No endpoint at GET /test/unimplemented");
  });
});
