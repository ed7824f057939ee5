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
  /** Postgres, Redis or the API could not be reached (or the API answered 429/5xx); retrying later may help. */
  unavailable: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  the operation failed (e.g. migrate --check found pending migrations or drift)
  2  usage error (unknown command or option, missing or invalid argument)
  3  configuration error (invalid svc.yaml / SVC__* variables, database credentials refused,
     no SVC_URL / SVC_API_KEY, the API refused the key)
  4  not found (e.g. revoking an unknown key id, an API 404)
  5  service unavailable (Postgres, Redis or the API unreachable; retrying later may help)

Database commands read the configuration like the service does: --config or SVC_CONFIG, else
./svc.yaml, then SVC__SECTION__KEY, DATABASE_URL and REDIS_URL. API commands use --url and --key,
else SVC_URL and SVC_API_KEY, and print JSON when stdout is not a terminal. See docs/svcctl.md.`;
