export type MigrationErrorCode = "missing_sql" | "checksum_mismatch" | "failed_migration" | "apply_failed";

/** Raised by the runner; `code` tells the cases apart without reading the message. */
export class MigrationError extends Error {
  override readonly name = "MigrationError";

  constructor(
    readonly code: MigrationErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
