// Startup errors: one type whose message names every bad key and where its value came from, so an
// operator can fix the configuration from the first log line.

export interface ConfigIssue {
  /** Dotted key path, e.g. `api.port`; empty for problems with the file as a whole. */
  path: string;
  message: string;
  /** Where the bad value came from, e.g. `SVC__API__PORT` or the file path. */
  source?: string;
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.path ? `${issue.path}: ` : "";
  return `${where}${issue.message}${issue.source ? ` (${issue.source})` : ""}`;
}

export class ConfigError extends Error {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    super(`invalid configuration: ${issues.map(formatConfigIssue).join("; ")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}
