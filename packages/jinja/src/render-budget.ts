// Rendering is synchronous, so one render at a time owns these counters. The patched nunjucks
// runtime calls `tick` on every output, lookup, call and loop step; `chargeItems` counts what
// `range` and size-taking filters would allocate; `chargeOutput` what a field has printed. Filters
// that loop over their input call `checkDeadline` as they go (docs/templates.md "Limits"). All are
// no-ops outside a budgeted render, except the size checks, which hold everywhere.

export const RENDER_TIME_LIMIT_MS = 500;
export const RENDER_MAX_ITEMS = 10_000;
export const RENDER_MAX_WIDTH = 10_000;
/** Characters or items one `*` repetition may build. */
export const RENDER_MAX_REPEAT = 1_000_000;
/** Characters one filter, method or operator may build, and one field may print in all. */
const RENDER_MAX_TEXT = 10_000_000;

export class RenderLimitError extends Error {
  constructor(detail: string) {
    super(`render limit exceeded: ${detail}`);
    this.name = "RenderLimitError";
  }
}

interface BudgetState {
  deadline: number;
  timeLimitMs: number;
  items: number;
  ticks: number;
  /** Characters printed so far. */
  output: number;
  /** 0-based line of the first runtime error nunjucks reported in this render. */
  errorLine: number | null;
  timedOut: boolean;
}

let current: BudgetState | null = null;

export function withRenderBudget<T>(timeLimitMs: number, render: () => T): T {
  const previous = current;
  current = {
    deadline: performance.now() + timeLimitMs,
    timeLimitMs,
    items: 0,
    ticks: 0,
    output: 0,
    errorLine: null,
    timedOut: false,
  };
  try {
    return render();
  } finally {
    current = previous;
  }
}

export function tick(): void {
  if (!current) return;
  // Reading the clock every 256 steps keeps the guard cheap on the hot path.
  if ((++current.ticks & 255) === 0 && performance.now() > current.deadline) timedOut(current);
}

/**
 * Reads the clock now. Filters call it every so many steps of a loop over their input, where one
 * step may cost far more than a template step (a comparison of long strings, a regular expression
 * over a long word), so the limit holds inside a filter, not only between template steps.
 */
export function checkDeadline(): void {
  if (current && performance.now() > current.deadline) timedOut(current);
}

function timedOut(state: BudgetState): never {
  state.timedOut = true;
  // A time-out is about the whole render, not the line it happened to stop at.
  throw new RenderLimitError(`took longer than ${state.timeLimitMs} ms`);
}

/** A string or list about to be built with `size` characters or items (`what` names the builder). */
export function checkBuilt(what: string, size: number): void {
  if (size > RENDER_MAX_TEXT) throw new RenderLimitError(`${what} builds more than ${RENDER_MAX_TEXT}`);
}

/** Counts printed characters: a field prints at most RENDER_MAX_TEXT in all. */
export function chargeOutput(length: number): void {
  if (!current) return;
  current.output += length;
  if (current.output > RENDER_MAX_TEXT)
    throw new RenderLimitError(`output longer than ${RENDER_MAX_TEXT} characters`);
  // Printing a long value took time of its own (str() of a big list): look at the clock.
  if (length >= LONG_OUTPUT) checkDeadline();
}

const LONG_OUTPUT = 4096;

/** Sizes a template asks for (widths, repeat counts, batch sizes) go up to RENDER_MAX_WIDTH. */
export function checkSize(what: string, size: number): void {
  if (Math.abs(size) > RENDER_MAX_WIDTH) throw new RenderLimitError(`${what} above ${RENDER_MAX_WIDTH}`);
}

export function chargeItems(count: number): void {
  if (!current) return;
  current.items += count;
  if (current.items > RENDER_MAX_ITEMS)
    throw new RenderLimitError(`more than ${RENDER_MAX_ITEMS} items in ranges`);
}

export function noteErrorLine(line: unknown): void {
  if (current && current.errorLine === null && typeof line === "number") current.errorLine = line;
}

/** 0-based line of the failure in the current render; null when unknown or a time-out. */
export function currentErrorLine(): number | null {
  return current && !current.timedOut ? current.errorLine : null;
}
