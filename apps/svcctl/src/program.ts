import { Command, CommanderError } from "commander";
import { classifyError } from "./cli-error";
import { callbacksCommand } from "./commands/callbacks";
import { jobsCommand } from "./commands/jobs";
import { keysCommand } from "./commands/keys";
import { migrateCommand, type MigrationPaths } from "./commands/migrate";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes";
import { createSession, type CliIO, type Session } from "./session";
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
      "Operator CLI for svc: API keys, database migrations, background jobs and decision callbacks.",
    )
    .version(cliVersion(), "-V, --version", "print the version")
    .option("-c, --config <file>", "configuration file (default: $SVC_CONFIG, else ./svc.yaml when present)")
    .helpCommand(true)
    .exitOverride()
    .configureOutput({ writeOut: (text) => stdout.write(text), writeErr: (text) => stderr.write(text) })
    .addHelpText("after", EXIT_CODES_HELP);
  // Subcommands copy exitOverride and the output streams from their parent when created, so this comes last.
  keysCommand(program, session);
  migrateCommand(program, session, options.migrationPaths);
  jobsCommand(program, session);
  callbacksCommand(program, session);
  return program;
}

/** Runs `svcctl <argv…>` in this process and resolves with the exit code; never throws. */
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  options: BuildProgramOptions = {},
): Promise<number> {
  // The session reads --config only once a command runs, after parsing.
  const session = createSession(io, () => program.opts<{ config?: string }>().config);
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
