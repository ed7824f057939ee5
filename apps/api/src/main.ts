#!/usr/bin/env node
import { loadConfig } from "@svc/config";
import { createLogger } from "@svc/log";
import { exitGracefullyOnSignals, type SignalSource } from "@svc/worker";
import { isSupervisedApiProcess, superviseApiProcesses, supervisorSignals } from "./api-processes";
import { prepareService, startService } from "./start-service";

// `npm start`: the whole service in one process (API + embedded workers), the API alone in a
// split deployment (`worker.embedded: false`), or, with `api.processes` > 1, a supervisor of that
// many such processes sharing the port (api-processes.ts).
const env = process.env;
const cwd = process.cwd();

async function main(): Promise<void> {
  if (isSupervisedApiProcess()) return serve(supervisorSignals());
  const config = loadConfig({ env, cwd });
  if (config.api.processes === 1) return serve(process);
  await prepareService({ env, cwd });
  superviseApiProcesses({
    count: config.api.processes,
    logger: createLogger({ service: "api-supervisor", level: config.log.level }),
  });
}

async function serve(signals: SignalSource): Promise<void> {
  const service = await startService({ env, cwd });
  exitGracefullyOnSignals({
    logger: createLogger({ service: "api", level: service.config.log.level }),
    close: () => service.close(),
    source: signals,
  });
}

main().catch((error: unknown) => {
  console.error(`svc: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
