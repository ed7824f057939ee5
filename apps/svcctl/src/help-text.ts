import type { Command } from "commander";

/** The `Example:` block of a command's --help (every command has one, docs/svcctl.md). */
export function withExample(command: Command, ...lines: string[]): Command {
  return command.addHelpText("after", `\nExample:\n${lines.map((line) => `  ${line}`).join("\n")}`);
}
