import type { JobLogger } from "@svc/queue";

export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
}

export interface ShutdownOptions {
  close: () => Promise<void>;
  logger: JobLogger;
  exit?: (code: number) => void;
  source?: SignalSource;
  signals?: readonly NodeJS.Signals[];
}

// First SIGTERM/SIGINT: finish the active jobs, then exit 0 (1 if closing failed). A second
// signal means the operator will not wait: exit at once; the stalled checker re-runs its jobs.
export function exitGracefullyOnSignals(options: ShutdownOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const source = options.source ?? process;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.logger.warn("second signal, exiting without waiting for active jobs", { signal });
      exit(1);
      return;
    }
    stopping = true;
    options.logger.info("shutting down, waiting for active jobs", { signal });
    options.close().then(
      () => exit(0),
      (err: unknown) => {
        options.logger.error("shutdown failed", { error: err instanceof Error ? err.message : String(err) });
        exit(1);
      },
    );
  };
  for (const signal of options.signals ?? (["SIGTERM", "SIGINT"] as const))
    source.on(signal, () => onSignal(signal));
}
