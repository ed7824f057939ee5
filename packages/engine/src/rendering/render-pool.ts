import path from "node:path";
import type { GroupingKeyResult, RenderContext, RenderTemplateInput, RenderTemplateResult } from "@svc/core";
import { Piscina } from "piscina";
import { encodeRenderTask, runRenderTask, type RenderTask, type RenderTaskResult } from "./render-task";

// Rendering off the event loop, with a hard ceiling (docs/templates.md "Limits"). Every filter is
// linear or bounded and checks the render budget as it goes, but a filter nobody has thought of
// could still run long: renders therefore run on a small pool of worker threads, and a render that
// outlives RENDER_HARD_LIMIT_MS has its thread terminated (and replaced). The event loop of the
// API or worker process never waits on a template. `render.threads: 0` renders in the calling
// thread instead (no hard ceiling); docs/decisions.md "Hostile input" has the cost measured.

/** A task (one message's renderings, or one grouping key) is stopped after this long. */
export const RENDER_HARD_LIMIT_MS = 2_000;
/** Heap of one render thread: a render that would build more fails instead of swelling the process. */
const RENDER_THREAD_HEAP_MB = 512;

const MEMORY_DETAIL = "render limit exceeded: out of memory";
/** How often a task not yet started is looked at. */
const START_POLL_MS = 20;

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

  async close(): Promise<void> {
    await this.piscina?.destroy();
  }

  /** The task's result, or the detail of a hard-limit failure. */
  private async run(task: RenderTask): Promise<RenderTaskResult | string> {
    if (!this.piscina) return runRenderTask(task);
    // The thread writes when it starts the task: the clock runs from then, not while the task
    // waits behind others or for a replaced thread to boot.
    const startedAt = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT));
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const watch = () => {
      const started = startedAt[0]!;
      if (started === 0) timer = setTimeout(watch, START_POLL_MS);
      else timer = setTimeout(() => stop.abort(), Math.max(0, started + this.hardLimitMs - Date.now()));
    };
    watch();
    try {
      return (await this.piscina.run(encodeRenderTask({ ...task, startedAt }), {
        signal: stop.signal,
      })) as RenderTaskResult;
    } catch (error) {
      if ((error as Error).name === "AbortError")
        return `render limit exceeded: took longer than ${this.hardLimitMs} ms`;
      if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY") return MEMORY_DETAIL;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
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
