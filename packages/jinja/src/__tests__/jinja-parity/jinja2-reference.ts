import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";

// The real Jinja2, as the reference: Debian's python3-jinja2 run by /usr/bin/python3 (the pyenv
// python3 on PATH has another Jinja2). One process renders a whole batch.

export const PYTHON = "/usr/bin/python3";
const SCRIPT = path.join(__dirname, "render_jinja2.py");
const INSTALL_HINT = "install it with: apt-get install -y python3-jinja2 (.ci/run does this)";

export interface ReferenceCase {
  source: string;
  /** The render context as JSON text. */
  context: string;
  html?: boolean;
}

export type ReferenceResult = { ok: true; text: string } | { ok: false; error: string };

/** Jinja2's version; throws with the install hint when /usr/bin/python3 has no Jinja2 3.1. */
export function jinja2Version(): string {
  const probe = spawnSync(PYTHON, ["-c", "import jinja2; print(jinja2.__version__)"], { encoding: "utf8" });
  const version = probe.status === 0 ? probe.stdout.trim() : null;
  if (version === null)
    throw new Error(
      `${PYTHON} cannot import jinja2 (${probe.error?.message ?? probe.stderr.trim().split("\n").pop()}); ${INSTALL_HINT}`,
    );
  if (!version.startsWith("3.1."))
    throw new Error(`${PYTHON} has Jinja2 ${version}, not 3.1; ${INSTALL_HINT}`);
  return version;
}

export function renderWithJinja2(cases: ReferenceCase[]): ReferenceResult[] {
  const output = execFileSync(PYTHON, [SCRIPT], {
    input: JSON.stringify({ cases }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(output) as ReferenceResult[];
}
