import type { Writable } from "node:stream";
import winston, { format, type Logger } from "winston";
import { getLogContext } from "./context";
import { redactFormat } from "./redact";

export type { Logger } from "winston";

export interface CreateLoggerOptions {
  service: string;
  level?: string;
  /** Where JSON lines go; stdout when absent (tests pass a stream to read them back). */
  stream?: Writable;
}

// Context fields fill in only what the call itself did not set.
const contextFormat = format((info) => {
  const ctx = getLogContext();
  if (ctx) {
    for (const [key, value] of Object.entries(ctx)) if (info[key] === undefined) info[key] = value;
  }
  return info;
});

export function createLogger({ service, level = "info", stream }: CreateLoggerOptions): Logger {
  const transport = stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console();
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: format.combine(format.timestamp(), contextFormat(), redactFormat(), format.json()),
    transports: [transport],
  });
}
