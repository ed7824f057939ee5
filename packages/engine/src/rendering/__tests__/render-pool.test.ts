import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { TemplateDefinition } from "@svc/core";
import { RenderPool } from "../render-pool";
import { decodeRenderTasks, encodeRenderTasks } from "../render-task";

const UNBUDGETED = path.join(__dirname, "unbudgeted-filter-worker.ts");

const template = (body: string): TemplateDefinition => ({
  key: "t",
  default_locale: "en",
  locales: { en: { title: "Hi {{ recipient.external_id }}", body } },
});
const input = (body: string, data: Record<string, unknown> = {}) => ({
  template: template(body),
  locale: "en",
  channel: null,
  context: { data, recipient: { external_id: "ada" } },
});

describe("tasks on their way to a thread", () => {
  it("travel as JSON text holding each message's context once, and arrive whole", () => {
    const context = { data: { rows: [[1], [2]], word: "x" }, recipient: { external_id: "ada" } };
    const task = {
      kind: "templates" as const,
      inputs: [
        { ...input("a"), channel: "email", html: true, context },
        { ...input("b"), channel: "sms", context },
      ],
    };
    const key = { kind: "grouping-key" as const, template: "{{ data.k }}", context: { data: { k: 1 } } };
    const wire = encodeRenderTasks([task, key]);
    expect(typeof wire.json).toBe("string");
    expect(wire.json.split('"rows"')).toHaveLength(2);
    const [decoded, decodedKey] = decodeRenderTasks(wire);
    expect(decoded).toEqual(task);
    if (decoded?.kind !== "templates") throw new Error("kind");
    expect(decoded.inputs[0]!.context).toBe(decoded.inputs[1]!.context);
    expect(decodedKey).toEqual(key);
  });
});

describe("RenderPool on a thread", () => {
  let pool: RenderPool;
  beforeAll(() => {
    pool = new RenderPool({ threads: 1, hardLimitMs: 1_000, workerFile: UNBUDGETED, heapMb: 64 });
  });
  afterAll(() => pool.close());

  it("renders what the calling thread would render", async () => {
    await expect(pool.renderTemplate(input("{{ data.n * 2 }} items", { n: 21 }))).resolves.toEqual({
      ok: true,
      locale: "en",
      channel: null,
      content: { title: "Hi ada", body: "42 items", url: null, thread: null },
    });
  });

  it("stops the renderings of one message at the first failure", async () => {
    const results = await pool.renderTemplates([input("{{ 1 // 0 }}"), input("never rendered")]);
    expect(results).toEqual([
      { ok: false, detail: "locales.en.body: line 1: integer division or modulo by zero" },
    ]);
  });

  it("keeps the soft budget inside the thread", async () => {
    const nested = "{% for a in range(10000) %}{% for b in data.items %}{% endfor %}{% endfor %}";
    await expect(
      pool.renderTemplate(input(nested, { items: Array.from({ length: 100_000 }, (_, i) => i) })),
    ).resolves.toEqual({
      ok: false,
      detail: "locales.en.body: render limit exceeded: took longer than 500 ms",
    });
  });

  it("stops a filter that ignores every budget at the hard limit, and the event loop never waits", async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const result = await pool.renderTemplate(input("{{ data.x | spin }}", { x: 1 }));
    const took = performance.now() - started;
    delay.disable();
    expect(result).toEqual({ ok: false, detail: "render limit exceeded: took longer than 1000 ms" });
    expect(took).toBeGreaterThanOrEqual(1_000);
    expect(took).toBeLessThan(2_500);
    // This thread went on serving while the render thread spun.
    expect(delay.max / 1e6).toBeLessThan(100);
  });

  it("replaces a thread it had to stop, and the next render works", async () => {
    await pool.renderTemplate(input("{{ data.x | spin }}", { x: 1 }));
    await expect(pool.renderTemplate(input("ok {{ data.x }}", { x: 7 }))).resolves.toMatchObject({
      ok: true,
      content: { body: "ok 7" },
    });
  });

  it("fails a render that would outgrow the thread's heap, not the process", async () => {
    const small = new RenderPool({ threads: 1, hardLimitMs: 20_000, workerFile: UNBUDGETED, heapMb: 32 });
    try {
      await expect(small.renderTemplate(input("{{ data.x | swell }}", { x: 1 }))).resolves.toEqual({
        ok: false,
        detail: "render limit exceeded: out of memory",
      });
      await expect(small.renderTemplate(input("still {{ data.x }}", { x: "here" }))).resolves.toMatchObject({
        ok: true,
        content: { body: "still here" },
      });
    } finally {
      await small.close();
    }
  });

  it("gives each render its own clock: renders queued behind a stuck one are not cut short", async () => {
    const stuck = pool.renderTemplate(input("{{ data.x | spin }}", { x: 1 }));
    const behind = Promise.all([1, 2, 3].map((n) => pool.renderTemplate(input("n={{ data.n }}", { n }))));
    await expect(stuck).resolves.toMatchObject({ ok: false });
    const results = await behind;
    expect(results.map((r) => (r.ok ? r.content.body : r.detail))).toEqual(["n=1", "n=2", "n=3"]);
  });

  it("sends the renders asked for in one turn of the event loop as one trip", async () => {
    const before = pool.trips;
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => pool.renderTemplate(input("n={{ data.n }}", { n }))),
    );
    expect(results.map((r) => (r.ok ? r.content.body : r.detail))).toEqual([
      "n=1",
      "n=2",
      "n=3",
      "n=4",
      "n=5",
    ]);
    expect(pool.trips - before).toBe(1);
    // A render asked for after a turn has passed makes a trip of its own.
    await pool.renderTemplate(input("alone"));
    expect(pool.trips - before).toBe(2);
  });

  it("fails a stopped render alone: the others of its trip render, each with a full clock", async () => {
    const before = pool.trips;
    const started = performance.now();
    const outcomes = await Promise.all([
      pool.renderTemplate(input("first {{ data.n }}", { n: 1 })),
      pool.renderTemplate(input("{{ data.x | spin }}", { x: 1 })),
      pool.renderTemplate(input("{{ data.x | spin }}", { x: 2 })),
      pool.renderTemplate(input("last {{ data.n }}", { n: 4 })),
    ]);
    expect(outcomes.map((r) => (r.ok ? r.content.body : r.detail))).toEqual([
      "first 1",
      "render limit exceeded: took longer than 1000 ms",
      "render limit exceeded: took longer than 1000 ms",
      "last 4",
    ]);
    // The trip of four, stopped at the first spin; then the other three alone: the second spin
    // is stopped after its own 1,000 ms, not cut short by the first one's clock.
    expect(pool.trips - before).toBe(4);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2_000);
  });
});

describe("RenderPool with threads: 0", () => {
  it("renders in the calling thread", async () => {
    const pool = new RenderPool({ threads: 0 });
    await expect(
      pool.renderGroupingKey("{{ data.city | lower }}", { data: { city: "Köln" } }),
    ).resolves.toEqual({
      ok: true,
      key: "köln",
    });
    await pool.close();
  });
});
