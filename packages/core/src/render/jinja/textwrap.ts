import { PY_SPACE } from "./str-methods";

// Python's textwrap.wrap as Jinja2's `wordwrap` uses it (expand_tabs and replace_whitespace off,
// drop_whitespace on), ported from CPython 3.11's TextWrapper.

const WS = "[\\t\\n\\x0b\\x0c\\r ]";
const NWS = "[^\\t\\n\\x0b\\x0c\\r ]";
const WORD_PUNCT = "[\\p{L}\\p{N}_!\"'&.,?]";
const LETTER = "[\\p{L}_]";
const WORD_SEPARATORS = new RegExp(
  `(${WS}+|(?<=${WORD_PUNCT})-{2,}(?=[\\p{L}\\p{N}_])|${NWS}+?(?:-(?:(?<=${LETTER}{2}-)|(?<=${LETTER}-${LETTER}-))(?=${LETTER}-?${LETTER})|(?=${WS}|$)|(?<=${WORD_PUNCT})(?=-{2,}[\\p{L}\\p{N}_])))`,
  "u",
);
const SIMPLE_SEPARATORS = new RegExp(`(${WS}+)`);
const BLANK = new RegExp(`^[${PY_SPACE}]*$`);

const len = (text: string) => [...text].length;

function handleLongWord(
  chunks: string[],
  line: string[],
  lineLength: number,
  width: number,
  breakLong: boolean,
  breakHyphens: boolean,
): void {
  const spaceLeft = width < 1 ? 1 : width - lineLength;
  if (breakLong) {
    let end = spaceLeft;
    const chunk = [...chunks[chunks.length - 1]!];
    if (breakHyphens && chunk.length > spaceLeft) {
      const hyphen = chunk.slice(0, spaceLeft).lastIndexOf("-");
      if (hyphen > 0 && chunk.slice(0, hyphen).some((c) => c !== "-")) end = hyphen + 1;
    }
    line.push(chunk.slice(0, end).join(""));
    chunks[chunks.length - 1] = chunk.slice(end).join("");
  } else if (line.length === 0) {
    line.push(chunks.pop()!);
  }
}

export function wrapText(text: string, width: number, breakLong: boolean, breakHyphens: boolean): string[] {
  if (width <= 0) throw new Error(`invalid width ${width} (must be > 0)`);
  const chunks = text.split(breakHyphens ? WORD_SEPARATORS : SIMPLE_SEPARATORS).filter((c) => c);
  chunks.reverse();
  const lines: string[] = [];
  while (chunks.length) {
    const line: string[] = [];
    let lineLength = 0;
    if (lines.length && BLANK.test(chunks[chunks.length - 1]!)) chunks.pop();
    while (chunks.length && lineLength + len(chunks[chunks.length - 1]!) <= width) {
      const chunk = chunks.pop()!;
      line.push(chunk);
      lineLength += len(chunk);
    }
    if (chunks.length && len(chunks[chunks.length - 1]!) > width) {
      handleLongWord(chunks, line, lineLength, width, breakLong, breakHyphens);
      lineLength = line.reduce((sum, part) => sum + len(part), 0);
    }
    if (line.length && BLANK.test(line[line.length - 1]!)) {
      lineLength -= len(line[line.length - 1]!);
      line.pop();
    }
    if (line.length) lines.push(line.join(""));
  }
  return lines;
}
