import express, { type Express } from "express";
import request from "supertest";
import { sendJson, weakEntityTag } from "../send-json";

// sendJson writes what res.status(status).json(body) writes: same status, headers and bytes.

const BODIES = [
  { id: "evt_1", name: "order.created", data: { total: "42.00" }, outcome: [], duplicate: false },
  { text: "é € 😀 \u2028", nested: { list: [1, null, true] } },
  {},
];

function apps(setup?: (app: Express) => void) {
  const make = (send: (res: express.Response, body: object) => void) => {
    const app = express();
    app.disable("x-powered-by");
    setup?.(app);
    app.use(express.json());
    app.post("/", (req, res) => {
      res.setHeader("X-Request-Id", "r-1");
      send(res, req.body as object);
    });
    return app;
  };
  return {
    viaExpress: make((res, body) => res.status(202).json(body)),
    viaSendJson: make((res, body) => sendJson(res, 202, body)),
  };
}

const withoutDate = (headers: Record<string, string>) => {
  const { date: _date, ...rest } = headers;
  return rest;
};

describe("sendJson", () => {
  it.each(BODIES.map((body) => [JSON.stringify(body), body]))(
    "answers %s exactly as res.json does",
    async (_name, body) => {
      const { viaExpress, viaSendJson } = apps();
      const a = await request(viaExpress).post("/").send(body);
      const b = await request(viaSendJson).post("/").send(body);
      expect(b.status).toBe(202);
      expect(b.text).toBe(a.text);
      expect(withoutDate(b.headers)).toEqual(withoutDate(a.headers));
      expect(Object.keys(b.headers)).toEqual(Object.keys(a.headers)); // header order too
    },
  );

  it("leaves apps with other JSON or ETag settings to Express", async () => {
    const { viaExpress, viaSendJson } = apps((app) => {
      app.set("json spaces", 2);
      app.set("etag", "strong");
    });
    const a = await request(viaExpress).post("/").send(BODIES[0]!);
    const b = await request(viaSendJson).post("/").send(BODIES[0]!);
    expect(b.text).toBe(a.text);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.headers.etag).not.toMatch(/^W\//);
  });

  it("goes through a wrapped res.json (response validation)", async () => {
    const app = express();
    app.post("/", (_req, res) => {
      const original = res.json.bind(res);
      res.json = (body: unknown) => original({ wrapped: body });
      sendJson(res, 200, { a: 1 });
    });
    const res = await request(app).post("/").expect(200);
    expect(res.body).toEqual({ wrapped: { a: 1 } });
  });

  it("computes the etag package's weak tag, the empty body included", () => {
    // Values from `etag(Buffer.from(body), { weak: true })`.
    expect(weakEntityTag('{"id":"x","s":"é€"}')).toBe('W/"16-WDCJpO09ier9S05VTpqDYI29j18"');
    expect(weakEntityTag("")).toBe('W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"');
  });
});
