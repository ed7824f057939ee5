import cluster, { type Worker } from "node:cluster";
import { AppError } from "@svc/core";
import { metrics, type Logger } from "@svc/log";

// `api.processes` > 1: this process supervises that many API processes sharing the port
// (node:cluster; the supervisor accepts and hands connections round robin). The supervisor alone
// answers signals, so a signal sent to the whole process group (Ctrl-C, a service manager) stops
// everything once: first signal, every API process drains and exits; second, they stop at once.
// An API process that dies on its own is replaced, unless it died within `crashLoopMs` of its
// start (a start that fails, such as a bad configuration, would fail again): then all stop, exit 1.

type Command = "shutdown" | "force";
const MESSAGE_KEY = "svc:api-process";
/** An API process asks the supervisor for the summed metrics of all of them (docs/operations.md "Metrics"). */
const METRICS_KEY = "svc:api-metrics";

interface MetricsAnswer {
  id: number;
  text?: string;
  error?: string;
}

export interface SuperviseOptions {
  count: number;
  logger: Pick<Logger, "info" | "warn" | "error">;
  crashLoopMs?: number;
  /** Where the supervisor's exit code goes (tests); default process.exit. */
  exit?: (code: number) => void;
  signals?: readonly NodeJS.Signals[];
}

export function superviseApiProcesses(options: SuperviseOptions): void {
  const crashLoopMs = options.crashLoopMs ?? 10_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const startedAt = new Map<number, number>();
  let stopping = false;
  let failed = false;

  cluster.schedulingPolicy = cluster.SCHED_RR;
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
  };
  const tell = (command: Command) => {
    for (const worker of Object.values(cluster.workers ?? {}) as Worker[]) {
      if (worker.isConnected()) worker.send({ [MESSAGE_KEY]: command });
      else if (command === "force") worker.process.kill("SIGKILL");
    }
  };
  let stoppedAt = 0;
  const stop = (reason: string) => {
    // One signal often arrives twice at once (sent to the process and to its group, as GNU
    // timeout does): only one a second or more later means "do not wait".
    if (stopping && Date.now() - stoppedAt < 1_000) return;
    if (stopping) {
      options.logger.warn("second signal, stopping the API processes at once", { reason });
      tell("force");
      return;
    }
    stopping = true;
    stoppedAt = Date.now();
    options.logger.info("stopping the API processes", { reason });
    tell("shutdown");
  };

  cluster.on("message", (worker, message: unknown) => {
    const id = (message as Record<string, unknown> | null)?.[METRICS_KEY];
    if (typeof id !== "number") return;
    const answer = (body: Omit<MetricsAnswer, "id">) => {
      if (worker.isConnected()) worker.send({ [METRICS_KEY]: { id, ...body } });
    };
    metrics.clusterMetricsText().then(
      (text) => answer({ text }),
      (error: unknown) => answer({ error: (error as Error).message }),
    );
  });
  cluster.on("exit", (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    if (code !== 0) failed = true;
    if (!stopping) {
      if (lived < crashLoopMs) {
        options.logger.error("an API process died right after starting; stopping", {
          pid: worker.process.pid,
          code,
          signal,
        });
        stop("crash loop");
      } else {
        options.logger.error("an API process died; starting another", {
          pid: worker.process.pid,
          code,
          signal,
        });
        failed = false;
        fork();
        return;
      }
    }
    // Our own count: cluster.workers may still list the exiting one while this event runs.
    if (startedAt.size === 0) exit(failed ? 1 : 0);
  });
  // A process forked just before a stop may not have been listening for messages yet: it is told
  // again once it serves (telling twice is harmless, see supervisorSignals).
  cluster.on("listening", (worker) => {
    if (stopping) worker.send({ [MESSAGE_KEY]: "shutdown" satisfies Command });
  });
  for (const signal of options.signals ?? (["SIGTERM", "SIGINT"] as const))
    process.on(signal, () => stop(signal));
  for (let i = 0; i < options.count; i++) fork();
  options.logger.info("API processes started", { processes: options.count, supervisor_pid: process.pid });
}

/**
 * In an API process under a supervisor: signals are the supervisor's to answer (ignored here),
 * and its messages arrive as the signals `exitGracefullyOnSignals` expects: "shutdown" as the
 * first SIGTERM, "force" as the second. A lost supervisor (its channel closes) counts as shutdown.
 */
export function supervisorSignals(): SignalRelay {
  metrics.reportToSupervisor();
  const source = new SignalRelay();
  let told = false;
  const ignore = () => undefined;
  process.on("SIGTERM", ignore);
  process.on("SIGINT", ignore);
  process.on("message", (message: unknown) => {
    const command = (message as Record<string, unknown> | null)?.[MESSAGE_KEY];
    if (command !== "shutdown" && command !== "force") return;
    // "shutdown" counts once; "force" is always the second signal (the first too if none came).
    if (!told) source.emit();
    told = true;
    if (command === "force") source.emit();
  });
  process.on("disconnect", () => {
    if (!told) source.emit();
    told = true;
  });
  return source;
}

/**
 * The supervisor's word as a signal source. A word that comes before anyone listens (the
 * supervisor stopping while this process still starts) is kept and given to the first listener.
 */
export class SignalRelay {
  private listeners: (() => void)[] = [];
  private kept = 0;

  /** Only SIGTERM listeners hear it (a shutdown handler listening to several signals runs once). */
  on(signal: NodeJS.Signals, listener: () => void): this {
    if (signal !== "SIGTERM") return this;
    this.listeners.push(listener);
    const kept = this.kept;
    this.kept = 0;
    for (let i = 0; i < kept; i++) queueMicrotask(listener);
    return this;
  }

  emit(): void {
    if (this.listeners.length === 0) this.kept++;
    for (const listener of this.listeners) listener();
  }
}

export const isSupervisedApiProcess = (): boolean => cluster.isWorker;

let metricsRequests = 0;

/** A scrape that cannot report the whole API answers 503 (Prometheus tries again next interval). */
const unavailable = (detail: string) =>
  new AppError("unavailable", detail, { headers: { "Retry-After": "5" } });

/**
 * In an API process under a supervisor: the metrics every API process counted, summed by the
 * supervisor, so any process answering a scrape reports the whole API (docs/operations.md
 * "Metrics").
 */
export function metricsOfAllApiProcesses(timeoutMs = 6_000): Promise<string> {
  const id = ++metricsRequests;
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const answer = (message as Record<string, MetricsAnswer | undefined> | null)?.[METRICS_KEY];
      if (answer?.id !== id) return;
      finish();
      if (answer.text !== undefined) resolve(answer.text);
      else reject(unavailable(`the supervisor could not gather the metrics: ${answer.error ?? "no answer"}`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(unavailable(`the supervisor did not answer for the metrics within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      process.off("message", onMessage);
    };
    process.on("message", onMessage);
    process.send!({ [METRICS_KEY]: id });
  });
}
