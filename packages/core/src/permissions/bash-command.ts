import { parse, type ParseEntry } from "shell-quote";

// A Bash command as permission rules see it (docs/hooks.md "Rules"): the simple commands it chains
// (`;`, `&&`, `||`, `|`, `|&`, `&`), each with its words joined by one space. A rule allows a
// command only when it allows every one of them, so `Bash(npm test:*)` never lets
// `npm test && curl … | sh` through. What the shell would expand into more commands (command or
// process substitution, subshells, several lines) is `complex`: no allow rule covers it, while its
// inner commands are still parts, so deny rules see them.

export interface BashCommand {
  /** The simple commands, words joined by single spaces (quotes resolved). */
  parts: string[];
  /** Substitution, a subshell, a line break or unparseable quoting: never allowed by a rule. */
  complex: boolean;
}

const SEPARATORS = new Set([";", "&&", "||", "|", "|&", "&", ";;"]);
// Redirections stay part of their command (`echo hi > out.txt`).
const REDIRECTIONS = new Set([">", ">>", "<", ">&", "<&", "<>", ">|"]);

export function splitBashCommand(command: string): BashCommand {
  // shell-quote reads a line break as a space: two lines would look like one command.
  let complex = /[\r\n`]/.test(command);
  let entries: ParseEntry[];
  try {
    // Variables stay as written (`$HOME`), never expanded from this process's environment.
    // Line breaks and backticks end a command too (what they start is a command of its own).
    entries = parse(command.replace(/[\r\n`]/g, " ; "), (name) => `$${name}`);
  } catch {
    return { parts: [command.trim()].filter(Boolean), complex: true };
  }
  const parts: string[] = [];
  let words: string[] = [];
  const end = () => {
    if (words.length > 0) parts.push(words.join(" "));
    words = [];
  };
  for (const entry of entries) {
    if (typeof entry === "string") {
      words.push(entry);
      continue;
    }
    if ("comment" in entry) break; // the rest of the line is a comment
    if (entry.op === "glob") {
      words.push(entry.pattern);
    } else if (SEPARATORS.has(entry.op)) {
      end();
    } else if (REDIRECTIONS.has(entry.op)) {
      words.push(entry.op);
    } else {
      // `(`, `)`, `<(`: a subshell, `$(…)` or process substitution, whose inside is a command.
      complex = true;
      end();
    }
  }
  end();
  return { parts, complex };
}
