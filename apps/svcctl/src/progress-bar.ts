import type { Output } from "./session";

// A one-line progress bar on a terminal (`svcctl events post --file`): redrawn in place with a
// carriage return; on anything else (a pipe, a log file) nothing is drawn, so output stays clean.

const WIDTH = 30;

/** The bar itself, `[#####-----]`, for a share between 0 and 1 (also drawn by `broadcasts watch`). */
export function barOf(share: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, share)) * WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}]`;
}

export interface ProgressBar {
  update(done: number): void;
  /** Ends the line the bar was drawn on (nothing when it was never drawn). */
  finish(): void;
}

export function progressBar(stream: Output, total: number, unit: string): ProgressBar {
  if (stream.isTTY !== true || total === 0) return { update() {}, finish() {} };
  let drawn = false;
  return {
    update(done) {
      stream.write(
        `\r${barOf(done / total)} ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} ${unit}`,
      );
      drawn = true;
    },
    finish() {
      if (drawn) stream.write("\n");
    },
  };
}
