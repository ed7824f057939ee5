import { Command, InvalidArgumentError, Option } from "commander";
import type { Schemas } from "@svc/client";

// Small helpers shared by the commands that talk to the HTTP API (send, events, messages,
// approvals; later broadcasts): a new group is a file in commands/api/ built from these.

const IMPORTANCE = ["low", "normal", "high", "critical"] as const;

/** `--json` on every API command. */
export function withJson(command: Command, what = "the result"): Command {
  return command.option("--json", `print ${what} as JSON (the default when stdout is not a terminal)`);
}

export { withExample } from "../../help-text";

export const importanceOption = () =>
  new Option("--importance <level>", "low, normal, high or critical").choices(IMPORTANCE);

/** A JSON object given on the command line (`--data '{"order": "A-1001"}'`). */
export function parseJsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not JSON (${(error as Error).message}).`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidArgumentError('expected a JSON object, e.g. \'{"order": "A-1001"}\'.');
  }
  return parsed as Record<string, unknown>;
}

/** Repeatable and comma-separated: `--channel email --channel sms` = `--channel email,sms`. */
export function collectList(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new InvalidArgumentError("give at least one value.");
  return [...(previous ?? []), ...items];
}

export function parseSeconds(value: string): number {
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(seconds)) throw new InvalidArgumentError("expected a whole number of seconds.");
  return seconds;
}

/** The optional `reason` of an approve or reject body. */
export const decisionBody = (reason: string | undefined): Schemas["Decision"] =>
  reason === undefined ? {} : { reason };

/** Short summary lines of the resources the API commands print on a terminal. */
export const MESSAGE_FIELDS = [
  "id",
  "status",
  "status_reason",
  "recipient",
  "agent",
  "category",
  "template",
  "channels",
  "channel",
  "send_at",
  "approval_expires_at",
  "reviewed_by",
  "created_at",
];
export const APPROVAL_FIELDS = [
  "id",
  "status",
  "title",
  "agent",
  "reviewers",
  "importance",
  "expires_at",
  "decided_by",
  "comment",
  "decided_at",
  "created_at",
];
