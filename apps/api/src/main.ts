#!/usr/bin/env node
import { exitGracefullyOnSignals } from "@svc/worker";
import { createLogger } from "@svc/log";
import { startService } from "./start-service";

// `npm start`: the whole service in one process (API + embedded workers), or the API alone in a
// split deployment (`worker.embedded: false`).
startService({ env: process.env, cwd: process.cwd() })
  .then((service) => {
    exitGracefullyOnSignals({
      logger: createLogger({ service: "api", level: service.config.log.level }),
      close: () => service.close(),
    });
  })
  .catch((error: unknown) => {
    console.error(`svc: failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
