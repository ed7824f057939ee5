import { Command, CommanderError } from "commander";
import { classifyError } from "./cli-error";
import { approvalsCommand } from "./commands/api/approvals";
import { broadcastsCommand } from "./commands/api/broadcasts";
import { eventsCommand } from "./commands/api/events";
import { hookCommand } from "./commands/api/hook";
import { mcpCommand } from "./commands/api/mcp";
import { messagesCommand } from "./commands/api/messages";
import { sendCommand } from "./commands/api/send";
import { callbacksCommand } from "./commands/callbacks";
import { webhooksCommand } from "./commands/webhooks";
import { jobsCommand } from "./commands/jobs";
import { keysCommand } from "./commands/keys";
import { migrateCommand, type MigrationPaths } from "./commands/migrate";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes";
import { createSession, type CliIO, type GlobalOptions, type Session } from "./session";
import { cliVersion } from "./version";

export interface BuildProgramOptions {
  /** Where `migrate` finds migrations and schema.prisma (default: the repository's prisma/). */
  migrationPaths?: MigrationPaths;
}

/** The commander program over one session; `exitOverride` turns every exit into a thrown CommanderError. */
export function buildProgram(session: Session, options: BuildProgramOptions = {}): Command {
  const { stdout, stderr } = session.io;
  const program = new Command("svcctl")
    .description(
      "svc's CLI: messages, events, approvals and broadcasts over the HTTP API; MCP tools and the coding-agent hook; API keys, migrations, jobs, callbacks and webhooks straight in the database.",
    )
    .version(cliVersion(), "-V, --version", "print the version")
    .option("-c, --config <file>", "configuration file (default: $SVC_CONFIG, else ./svc.yaml when present)")
    .option("--url <url>", "the HTTP API, for API commands (default: $SVC_URL)")
    .option("--key <key>", "API key for API commands (default: $SVC_API_KEY; prefer the variable)")
    .helpCommand(true)
    .exitOverride()
    .configureOutput({ writeOut: (text) => stdout.write(text), writeErr: (text) => stderr.write(text) })
    .addHelpText("after", EXIT_CODES_HELP);
  // Subcommands copy exitOverride and the output streams from their parent when created, so this comes last.
  keysCommand(program, session);
  migrateCommand(program, session, options.migrationPaths);
  jobsCommand(program, session);
  callbacksCommand(program, session);
  webhooksCommand(program, session);
  // Over the HTTP API (docs/svcctl.md "Talking to the API"); one file per group in commands/api.
  sendCommand(program, session);
  eventsCommand(program, session);
  messagesCommand(program, session);
  approvalsCommand(program, session);
  broadcastsCommand(program, session);
  hookCommand(program, session);
  mcpCommand(program, session);
  return program;
}

/** Runs `svcctl <argv…>` in this process and resolves with the exit code; never throws. */
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  options: BuildProgramOptions = {},
): Promise<number> {
  // The session reads --config only once a command runs, after parsing.
  const session = createSession(io, () => program.opts<GlobalOptions>());
  const program = buildProgram(session, options);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (error) {
    // Commander has already printed its message (or the help / version asked for).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const failure = classifyError(error, session.targets());
    io.stderr.write(`error: ${failure.message}\n`);
    return failure.exitCode;
  } finally {
    await session.close();
  }
}
