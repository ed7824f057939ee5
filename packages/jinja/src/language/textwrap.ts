import { checkDeadline, tick } from "../render-budget";
import { PY_SPACE } from "./str-methods";

// Python's textwrap.wrap as Jinja2's `wordwrap` uses it (expand_tabs and replace_whitespace off,
// drop_whitespace on), ported from CPython 3.11's TextWrapper. CPython slices the rest of a long
// word off for every line it fills, which is quadratic in the word (a 40,000-character word at
// width 5 took seconds); here a chunk is a code-point array read from a moving start, with what
// each step asks of it (length, last hyphen, blank or not) answered in constant time.

const WS = "[\\t\\n\\x0b\\x0c\\r ]";
const NWS = "[^\\t\\n\\x0b\\x0c\\r ]";
const WORD_PUNCT = "[\\p{L}\\p{N}_!\"'&.,?]";
const LETTER = "[\\p{L}_]";
const WORD_SEPARATORS = new RegExp(
  `(${WS}+|(?<=${WORD_PUNCT})-{2,}(?=[\\p{L}\\p{N}_])|${NWS}+?(?:-(?:(?<=${LETTER}{2}-)|(?<=${LETTER}-${LETTER}-))(?=${LETTER}-?${LETTER})|(?=${WS}|$)|(?<=${WORD_PUNCT})(?=-{2,}[\\p{L}\\p{N}_])))`,
  "u",
);
const SIMPLE_SEPARATORS = new RegExp(`(${WS}+)`);
const WHITESPACE_RUN = new RegExp(`^${WS}+$`);
const SPACE_CHAR = new RegExp(`^[${PY_SPACE}]$`);
const SPACE_RUN = new RegExp(`^[${PY_SPACE}]*$`);

/** A chunk of text from `start` on, as code points. */
class Chunk {
  private readonly chars: string[];
  private start = 0;
  /** Index of the last character that str.strip() would keep (-1: the whole chunk is blank). */
  private readonly lastNonSpace: number;
  private hyphens: { previous: Int32Array; nextNonHyphen: Int32Array } | null = null;

  constructor(text: string) {
    this.chars = [...text];
    let last = this.chars.length - 1;
    while (last >= 0 && SPACE_CHAR.test(this.chars[last]!)) last -= 1;
    this.lastNonSpace = last;
  }

  get length(): number {
    return this.chars.length - this.start;
  }

  /** `chunk.strip() == ''` */
  get blank(): boolean {
    return this.lastNonSpace < this.start;
  }

  text(): string {
    return this.chars.slice(this.start).join("");
  }

  /** Takes the first `count` characters off the front. */
  take(count: number): string {
    const taken = this.chars.slice(this.start, this.start + count).join("");
    this.start = Math.min(this.chars.length, this.start + count);
    return taken;
  }

  /** `chunk.rfind('-', 0, end)`, relative to the start; -1 when none. */
  lastHyphenBefore(end: number): number {
    const { previous } = this.hyphenIndex();
    const at = previous[Math.min(this.chars.length, this.start + end) - 1] ?? -1;
    return at >= this.start ? at - this.start : -1;
  }

  /** `any(c != '-' for c in chunk[:end])` */
  hasNonHyphenBefore(end: number): boolean {
    const { nextNonHyphen } = this.hyphenIndex();
    return (nextNonHyphen[this.start] ?? this.chars.length) < this.start + end;
  }

  private hyphenIndex() {
    if (this.hyphens) return this.hyphens;
    const n = this.chars.length;
    const previous = new Int32Array(n);
    const nextNonHyphen = new Int32Array(n + 1);
    for (let i = 0, last = -1; i < n; i++) {
      if (this.chars[i] === "-") last = i;
      previous[i] = last;
    }
    nextNonHyphen[n] = n;
    for (let i = n - 1; i >= 0; i--) nextNonHyphen[i] = this.chars[i] === "-" ? nextNonHyphen[i + 1]! : i;
    this.hyphens = { previous, nextNonHyphen };
    return this.hyphens;
  }
}

interface Piece {
  text: string;
  length: number;
  blank: boolean;
}

function handleLongWord(
  chunks: Chunk[],
  line: Piece[],
  lineLength: number,
  width: number,
  breakLong: boolean,
  breakHyphens: boolean,
): void {
  const spaceLeft = width < 1 ? 1 : width - lineLength;
  if (breakLong) {
    let end = spaceLeft;
    const chunk = chunks[chunks.length - 1]!;
    if (breakHyphens && chunk.length > spaceLeft) {
      const hyphen = chunk.lastHyphenBefore(spaceLeft);
      if (hyphen > 0 && chunk.hasNonHyphenBefore(hyphen)) end = hyphen + 1;
    }
    const length = Math.min(end, chunk.length);
    const blank = chunk.blank; // a blank chunk's every part is blank
    const text = chunk.take(end);
    line.push({ text, length, blank: blank || SPACE_RUN.test(text) });
  } else if (line.length === 0) {
    const chunk = chunks.pop()!;
    line.push({ text: chunk.text(), length: chunk.length, blank: chunk.blank });
  }
}

/**
 * TextWrapper._split: the word-splitting expression is applied to each run of non-space text on
 * its own (its look-arounds never reach across a space, and `$` there stands for the space), so
 * a long text is many short regular-expression runs with a budget tick between them.
 */
function splitChunks(text: string, breakHyphens: boolean): string[] {
  const runs = text.split(SIMPLE_SEPARATORS).filter((c) => c);
  if (!breakHyphens) return runs;
  const chunks: string[] = [];
  for (const run of runs) {
    tick();
    if (WHITESPACE_RUN.test(run)) chunks.push(run);
    else for (const chunk of run.split(WORD_SEPARATORS)) if (chunk) chunks.push(chunk);
  }
  return chunks;
}

export function wrapText(text: string, width: number, breakLong: boolean, breakHyphens: boolean): string[] {
  if (width <= 0) throw new Error(`invalid width ${width} (must be > 0)`);
  const chunks = splitChunks(text, breakHyphens).map((c) => {
    tick();
    return new Chunk(c);
  });
  chunks.reverse();
  const lines: string[] = [];
  while (chunks.length) {
    checkDeadline();
    const line: Piece[] = [];
    let lineLength = 0;
    if (lines.length && chunks[chunks.length - 1]!.blank) chunks.pop();
    while (chunks.length && lineLength + chunks[chunks.length - 1]!.length <= width) {
      const chunk = chunks.pop()!;
      line.push({ text: chunk.text(), length: chunk.length, blank: chunk.blank });
      lineLength += chunk.length;
    }
    if (chunks.length && chunks[chunks.length - 1]!.length > width) {
      handleLongWord(chunks, line, lineLength, width, breakLong, breakHyphens);
      lineLength = line.reduce((sum, part) => sum + part.length, 0);
    }
    if (line.length && line[line.length - 1]!.blank) {
      lineLength -= line[line.length - 1]!.length;
      line.pop();
    }
    if (line.length) lines.push(line.map((part) => part.text).join(""));
  }
  return lines;
}
