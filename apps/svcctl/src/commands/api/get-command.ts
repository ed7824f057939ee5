import type { Command } from "commander";
import type { ApiAccess } from "../../api-access";
import { printRecord } from "../../output";
import type { Session } from "../../session";
import { withExample, withJson } from "./api-command";

export interface GetCommandSpec {
  description: string;
  /** How the `<id>` argument is described, e.g. "the message's id (msg_…)". */
  argument: string;
  /** What `--json` prints, e.g. "the message". */
  what: string;
  fields: string[];
  example: string;
  read: (api: ApiAccess, id: string) => Promise<object>;
}

/** `svcctl <group> get <id>`: read one resource over the HTTP API and print it. */
export function getCommand(group: Command, s: Session, spec: GetCommandSpec): Command {
  const get = group
    .command("get")
    .description(spec.description)
    .argument("<id>", spec.argument)
    .action(async (id: string, options: { json?: boolean }) => {
      printRecord(s, options, await spec.read(s.api(), id), spec.fields);
    });
  withJson(get, spec.what);
  withExample(get, spec.example);
  return get;
}
