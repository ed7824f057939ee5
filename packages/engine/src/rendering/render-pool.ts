import path from "node:path";
import type { GroupingKeyResult, RenderContext, RenderTemplateInput, RenderTemplateResult } from "@svc/core";
import { Piscina } from "piscina";
import { encodeRenderTasks, runRenderTask, type RenderTask, type RenderTaskResult } from "./render-task";

// Rendering off the event loop, with a hard ceiling (docs/templates.md "Limits"). Every filter is
// linear or bounded and checks the render budget as it goes, but a filter nobody has thought of
// could still run long: renders therefore run on a small pool of worker threads, and a render that
// outlives RENDER_HARD_LIMIT_MS has its thread terminated (and replaced). The event loop of the
// API or worker process never waits on a template. `render.threads: 0` renders in the calling
// thread instead (no hard ceiling); docs/decisions.md "Hostile input" has the cost measured.
// The tasks asked for in one turn of the event loop (a batch of direct sends decides its messages
// together) go to a thread as one trip, each still with its own clock: when one is stopped, it
// alone fails, and the others of its trip run again, each on a trip of its own.

/** A task (one message's renderings, or one grouping key) is stopped after this long. */
export const RENDER_HARD_LIMIT_MS = 2_000;
/** Heap of one render thread: a render that would build more fails instead of swelling the process. */
const RENDER_THREAD_HEAP_MB = 512;

const MEMORY_DETAIL = "render limit exceeded: out of memory";
/** How often a task not yet started is looked at. */
const START_POLL_MS = 20;
/** Most tasks on one trip to a thread. */
const MAX_TRIP = 64;

// From source (tests, `node -r scripts/register-ts.cjs`) the thread compiles TypeScript the same way.
const FROM_SOURCE = __filename.endsWith(".ts");
const WORKER_FILE = path.join(__dirname, FROM_SOURCE ? "render-worker.ts" : "render-worker.js");
const REGISTER_TS = path.resolve(__dirname, "../../../../scripts/register-ts.cjs");

export interface RenderPoolOptions {
  /** Render threads; 0 renders in the calling thread. */
  threads: number;
  hardLimitMs?: number;
  heapMb?: number;
  /** The thread's entry (tests give one with a filter that ignores every budget). */
  workerFile?: string;
}

export class RenderPool {
  private readonly piscina: Piscina | null;
  private readonly hardLimitMs: number;
  /** Tasks asked for in this turn of the event loop, not yet on their way to a thread. */
  private readonly waiting: Waiting[] = [];
  private tripsSent = 0;

  constructor(options: RenderPoolOptions) {
    this.hardLimitMs = options.hardLimitMs ?? RENDER_HARD_LIMIT_MS;
    this.piscina =
      options.threads > 0
        ? new Piscina({
            filename: options.workerFile ?? WORKER_FILE,
            minThreads: options.threads,
            maxThreads: options.threads,
            idleTimeout: Number.POSITIVE_INFINITY,
            execArgv: FROM_SOURCE ? ["-r", REGISTER_TS] : [],
            resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? RENDER_THREAD_HEAP_MB },
          })
        : null;
    // A thread that dies fails its own task (below); the pool's event only repeats that.
    this.piscina?.on("error", () => undefined);
  }

  /** The renderings of one message, one per input, stopping at the first failure. */
  async renderTemplates(inputs: RenderTemplateInput[]): Promise<RenderTemplateResult[]> {
    const outcome = await this.run({ kind: "templates", inputs });
    return typeof outcome === "string"
      ? [{ ok: false, detail: outcome }]
      : (outcome as RenderTemplateResult[]);
  }

  async renderTemplate(input: RenderTemplateInput): Promise<RenderTemplateResult> {
    const [result] = await this.renderTemplates([input]);
    return result!;
  }

  async renderGroupingKey(template: string | null, context: RenderContext): Promise<GroupingKeyResult> {
    const outcome = await this.run({ kind: "grouping-key", template, context });
    return typeof outcome === "string"
      ? { ok: false, detail: `digest.key: ${outcome}` }
      : (outcome as GroupingKeyResult);
  }

  /** Trips made to a thread so far (each carries one or more tasks). */
  get trips(): number {
    return this.tripsSent;
  }

  async close(): Promise<void> {
    await this.piscina?.destroy();
  }

  /** The task's result, or the detail of a hard-limit failure. */
  private run(task: RenderTask): Promise<RenderTaskResult | string> {
    if (!this.piscina) return Promise.resolve(runRenderTask(task));
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.sendWaiting());
    });
  }

  private sendWaiting(): void {
    const waiting = this.waiting.splice(0);
    for (let i = 0; i < waiting.length; i += MAX_TRIP) void this.trip(waiting.slice(i, i + MAX_TRIP));
  }

  /**
   * One trip to a thread. A task the hard limit (or the heap) stops fails alone; the others of the
   * trip run again one by one, as does every task of a trip that failed otherwise.
   */
  private async trip(tasks: Waiting[]): Promise<void> {
    const outcome = await this.tripOutcome(tasks.map((t) => t.task));
    if (Array.isArray(outcome)) {
      tasks.forEach((t, i) => t.resolve(outcome[i]!));
      return;
    }
    if (tasks.length === 1) {
      if ("error" in outcome) tasks[0]!.reject(outcome.error);
      else tasks[0]!.resolve(outcome.detail);
      return;
    }
    await Promise.all(
      tasks.map((t, i) =>
        "detail" in outcome && i === outcome.index ? t.resolve(outcome.detail) : this.trip([t]),
      ),
    );
  }

  private async tripOutcome(
    tasks: RenderTask[],
  ): Promise<RenderTaskResult[] | { index: number; detail: string } | { error: unknown }> {
    // The thread writes when it starts each task: the clock runs from then, not while the trip
    // waits behind others or for a replaced thread to boot.
    const progress = new Float64Array(new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT));
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const watch = () => {
      const started = progress[0]!;
      if (started === 0) timer = setTimeout(watch, START_POLL_MS);
      else if (Date.now() >= started + this.hardLimitMs) stop.abort();
      // Still in time, or a later task of the trip started since: look again when it would be late.
      else timer = setTimeout(watch, started + this.hardLimitMs - Date.now());
    };
    watch();
    this.tripsSent++;
    try {
      return (await this.piscina!.run(encodeRenderTasks(tasks, progress), {
        signal: stop.signal,
      })) as RenderTaskResult[];
    } catch (error) {
      const index = progress[1]!;
      if ((error as Error).name === "AbortError")
        return { index, detail: `render limit exceeded: took longer than ${this.hardLimitMs} ms` };
      if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY")
        return { index, detail: MEMORY_DETAIL };
      return { error };
    } finally {
      clearTimeout(timer);
    }
  }
}

interface Waiting {
  task: RenderTask;
  resolve: (outcome: RenderTaskResult | string) => void;
  reject: (error: unknown) => void;
}

// One map per module instance; jest loads modules once per test file, so the map is also hung on
// that file's global, where the test setup (test/setup/close-render-pools.ts) closes what it holds.
const pools = new Map<number, RenderPool>();
(globalThis as Record<symbol, unknown>)[Symbol.for("svc.closeRenderPools")] = closeRenderPools;

/** The process's pool for `render.threads` (one per setting, made on first use). */
export function renderPool(config: { render: { threads: number } }): RenderPool {
  // A configuration built by hand (tests, scripts) may lack the section: the default then.
  const threads = (config.render as { threads: number } | undefined)?.threads ?? 1;
  let pool = pools.get(threads);
  if (!pool) {
    pool = new RenderPool({ threads });
    pools.set(threads, pool);
  }
  return pool;
}

/** Stops the process's render threads (at shutdown). */
export async function closeRenderPools(): Promise<void> {
  const closing = [...pools.values()].map((pool) => pool.close());
  pools.clear();
  await Promise.all(closing);
}
