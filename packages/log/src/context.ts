import { AsyncLocalStorage } from "node:async_hooks";

// Request/job context (request_id, job_id, ...) that every log line picks up without threading it
// through call sites. Each withLogContext call gets its own object, so addLogContext stays scoped.

export type LogContext = Record<string, unknown>;

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `ctx` merged over the current context (inner values win). */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...ctx }, fn);
}

/** The context of the running request or job, or undefined outside one. */
export function getLogContext(): LogContext | undefined {
  return storage.getStore();
}

/** Adds fields (e.g. key_id after authentication) to the current context; no-op outside one. */
export function addLogContext(fields: LogContext): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}
