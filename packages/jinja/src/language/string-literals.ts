// Jinja2 reads string literals with Python's escapes: \n \t \\ \' \" \xhh \uhhhh \Uhhhhhhhh, octal
// \ooo, \a \b \f \v, a backslash before a newline joins lines; any other backslash stays as it is.

const SIMPLE: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\n": "",
};

const ESCAPE = /\\(?:([0-7]{1,3})|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([\s\S]))/g;

export function pyUnescape(raw: string): string {
  if (!raw.includes("\\")) return raw;
  return raw.replace(ESCAPE, (whole, octal, hex2, hex4, hex8, other: string | undefined) => {
    const code = octal ?? hex2 ?? hex4 ?? hex8;
    if (code !== undefined) {
      const value = parseInt(code, octal !== undefined ? 8 : 16);
      if (value > 0x10ffff) throw new Error("invalid \\U escape in string");
      return String.fromCodePoint(value);
    }
    return other !== undefined && Object.hasOwn(SIMPLE, other) ? SIMPLE[other]! : whole;
  });
}
