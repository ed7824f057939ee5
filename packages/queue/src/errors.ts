import { UnrecoverableError } from "bullmq";

// A permanent failure: BullMQ fails the job at once instead of spending its remaining attempts.
// Handlers throw it directly, or a worker's `isPermanent` maps their own error classes onto it.
export class PermanentJobError extends UnrecoverableError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message);
    this.name = "PermanentJobError";
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

export type PermanentErrorTest = (err: unknown) => boolean;

/** Rethrows `err` as a PermanentJobError when the test calls it permanent, else unchanged. */
export function asJobError(err: unknown, isPermanent: PermanentErrorTest): unknown {
  if (err instanceof UnrecoverableError || !isPermanent(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new PermanentJobError(message, { cause: err });
}
