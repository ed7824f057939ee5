import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";

// The receiving end of the fault runs: ./sink-process.ts in a child process (so a busy test
// process cannot delay its reads), whose arrivals come here over IPC. Each svc process posts to
// the sink's URL with `?from=<its name>`.

const REGISTER = path.resolve(__dirname, "../../../scripts/register-ts.cjs");

export interface Arrival {
  /** When the sink read the request (ms, the sink process's clock: the machine's). */
  at: number;
  /** The svc process that sent it. */
  from: string;
}

type SinkMessage =
  | { kind: "listening"; port: number }
  | { kind: "flushed" }
  | { kind: "arrival"; id: string; at: number; from: string; subject: string | null };

export class WebhookSink {
  /** Arrivals per message id (a status webhook's event id), in order. */
  readonly received = new Map<string, Arrival[]>();
  /** A status webhook's event ids per message it is about. */
  readonly eventsBySubject = new Map<string, Set<string>>();
  total = 0;
  url = "";
  private child: ChildProcess | undefined;

  async start(): Promise<void> {
    const child = fork(path.join(__dirname, "sink-process.ts"), [], {
      execArgv: ["-r", REGISTER],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.child = child;
    child.on("message", (message: SinkMessage) => {
      if (message.kind !== "arrival") return;
      const arrivals = this.received.get(message.id) ?? [];
      arrivals.push({ at: message.at, from: message.from });
      this.received.set(message.id, arrivals);
      if (message.subject !== null)
        this.eventsBySubject.set(
          message.subject,
          (this.eventsBySubject.get(message.subject) ?? new Set()).add(message.id),
        );
      this.total += 1;
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.on("message", (message: SinkMessage) => {
        if (message.kind === "listening") resolve(message.port);
      });
      child.once("exit", (code) => reject(new Error(`webhook sink exited with ${code} before listening`)));
    });
    this.url = `http://127.0.0.1:${port}/hook`;
  }

  /** Resolves once every arrival the sink read so far has been received here. */
  async flush(): Promise<void> {
    const child = this.child!;
    await new Promise<void>((resolve) => {
      const onMessage = (message: SinkMessage) => {
        if (message.kind !== "flushed") return;
        child.off("message", onMessage);
        resolve();
      };
      child.on("message", onMessage);
      child.send({ kind: "flush" });
    });
  }

  /** Ids that first arrived by `at` (ms). */
  idsBy(at: number): Set<string> {
    return new Set([...this.received].filter(([, arrivals]) => arrivals[0]!.at <= at).map(([id]) => id));
  }

  /** Ids that arrived more than once, with their arrivals. */
  repeated(): Map<string, Arrival[]> {
    return new Map([...this.received].filter(([, arrivals]) => arrivals.length > 1));
  }

  /** Stops the sink; every arrival it reported has been received here by then (IPC is ordered). */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.disconnect();
    await exited;
  }
}
