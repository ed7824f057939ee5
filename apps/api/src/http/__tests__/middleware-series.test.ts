import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import request from "supertest";
import { series } from "../middleware-series";

// A series must behave as the same handlers mounted one `app.use` each.

const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    (res.locals.seen ??= []).push(name);
    next();
  };
const report: RequestHandler = (_req, res) => {
  res.json({ seen: res.locals.seen });
};
const reportError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
  res.status(500).json({ seen: res.locals.seen, error: err.message });
};

function both(steps: Parameters<typeof series>, after: RequestHandler[] = [report]) {
  const layered = express();
  for (const step of steps) layered.use(step);
  for (const handler of after) layered.use(handler);
  layered.use(reportError);
  const combined = express();
  combined.use(series(...steps));
  for (const handler of after) combined.use(handler);
  combined.use(reportError);
  return [layered, combined] as const;
}

async function sameAnswer(steps: Parameters<typeof series>, after?: RequestHandler[]) {
  const [layered, combined] = both(steps, after);
  const a = await request(layered).get("/x");
  const b = await request(combined).get("/x");
  expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
  return b;
}

describe("series", () => {
  it("runs the steps in order and then leaves to the next layer", async () => {
    const res = await sameAnswer([mark("a"), mark("b"), mark("c")]);
    expect(res.body.seen).toEqual(["a", "b", "c"]);
  });

  it("skips error handlers without an error", async () => {
    const swallow: ErrorRequestHandler = (_err, _req, _res, next) => next();
    const res = await sameAnswer([mark("a"), swallow, mark("b")]);
    expect(res.body.seen).toEqual(["a", "b"]);
  });

  it("sends an error to the next error handler in the series, which may recover", async () => {
    const fail: RequestHandler = () => {
      throw new Error("boom");
    };
    const recover: ErrorRequestHandler = (err: Error, _req, res, next) => {
      res.locals.recovered = err.message;
      next();
    };
    const res = await sameAnswer([mark("a"), fail, mark("skipped"), recover, mark("b")]);
    expect(res.body.seen).toEqual(["a", "b"]);
  });

  it("leaves the series with an error nobody in it handles (thrown, rejected, passed)", async () => {
    const thrown: RequestHandler = () => {
      throw new Error("thrown");
    };
    const rejected: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error("rejected");
    };
    const passed: RequestHandler = (_req, _res, next) => next(new Error("passed"));
    for (const [fail, message] of [
      [thrown, "thrown"],
      [rejected, "rejected"],
      [passed, "passed"],
    ] as const) {
      const res = await sameAnswer([mark("a"), fail, mark("skipped")]);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ seen: ["a"], error: message });
    }
  });

  it("an empty rejection is still an error", async () => {
    const res = await sameAnswer([mark("a"), () => Promise.reject(undefined)]);
    expect(res.body).toEqual({ seen: ["a"], error: "Rejected promise" });
  });

  it("'route' continues and 'router' leaves the router, as between layers", async () => {
    const route: RequestHandler = (_req, _res, next) => next("route");
    expect((await sameAnswer([mark("a"), route, mark("b")])).body.seen).toEqual(["a", "b"]);
    const router: RequestHandler = (_req, _res, next) => next("router");
    const [layered, combined] = both([mark("a"), router, mark("b")]);
    await request(layered).get("/x").expect(404);
    await request(combined).get("/x").expect(404);
  });
});
