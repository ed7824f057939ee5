export { createLogger, type CreateLoggerOptions, type Logger } from "./logger";
export { withLogContext, getLogContext, addLogContext, type LogContext } from "./context";
export { redactFormat, redactValue, redactString, isSensitiveKey, REDACTED } from "./redact";
export { createLogCapture, type LogCapture } from "./capture";
export * as metrics from "./metrics";
