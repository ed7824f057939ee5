import { Writable } from "node:stream";

// An in-memory sink for createLogger({stream}) so tests can assert on the JSON lines written.

export interface LogCapture {
  stream: Writable;
  entries(): Record<string, unknown>[];
}

export function createLogCapture(): LogCapture {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((line) => line.trim() !== ""),
      );
      callback();
    },
  });
  return { stream, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
