#!/usr/bin/env node
import { runCli } from "./program";

// `svcctl …` (npm run svcctl -- …). Apps may read process.env; everything below takes it as an argument.
void runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onTerminate(listener) {
    const signals = ["SIGTERM", "SIGINT"] as const;
    for (const signal of signals) process.on(signal, listener);
    return () => signals.forEach((signal) => process.off(signal, listener));
  },
}).then((code) => {
  process.exitCode = code;
  // Clients are closed by now; should a socket linger anyway, do not hang an operator's script.
  setTimeout(() => process.exit(code), 2_000).unref();
});
