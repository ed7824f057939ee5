// Exit codes scripts can rely on; documented in `svcctl --help` and docs/svcctl.md.
export const EXIT = {
  ok: 0,
  /** The operation ran and failed (e.g. `migrate --check` found pending migrations or drift). */
  failure: 1,
  /** The invocation was wrong: unknown command or option, missing or invalid argument. */
  usage: 2,
  /** The configuration (file, SVC__* variables) is invalid or its credentials were refused. */
  config: 3,
  /** The thing named does not exist (e.g. revoking an unknown key id). */
  notFound: 4,
  /** Postgres or Redis could not be reached; retrying later may help. */
  unavailable: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  the operation failed (e.g. migrate --check found pending migrations or drift)
  2  usage error (unknown command or option, missing or invalid argument)
  3  configuration error (invalid svc.yaml / SVC__* variables, database credentials refused)
  4  not found (e.g. revoking an unknown key id)
  5  service unavailable (Postgres or Redis unreachable)

Configuration is read like the service does: --config or SVC_CONFIG, else ./svc.yaml,
then SVC__SECTION__KEY, DATABASE_URL and REDIS_URL. See docs/svcctl.md.`;
