import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { Env } from "@svc/config";
import { runCli, type BuildProgramOptions } from "../program";
import type { CliIO } from "../session";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

// An empty working directory: no stray svc.yaml changes what the CLI reads.
export const EMPTY_CWD = fs.mkdtempSync(path.join(os.tmpdir(), "svcctl-test-"));

/** `svcctl <argv…>` in this process with the given environment (nothing from process.env). */
export async function svcctl(
  argv: string[],
  env: Env,
  io: Partial<Pick<CliIO, "now" | "redisTimeoutMs" | "cwd">> & {
    /** Text on stdin (`svcctl hook` reads a Claude Code payload there). */
    stdin?: string;
    /** Pretend stdout is a terminal (API commands print tables then). */
    tty?: boolean;
  } = {},
  options: BuildProgramOptions = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    {
      env,
      cwd: io.cwd ?? EMPTY_CWD,
      stdin: io.stdin === undefined ? undefined : Readable.from([io.stdin]),
      stdout: { write: (chunk: string) => (stdout += chunk), isTTY: io.tty },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      now: io.now,
      redisTimeoutMs: io.redisTimeoutMs,
    },
    options,
  );
  return { code, stdout, stderr };
}
