import { findNulCharacter } from "../unstorable-text";

describe("findNulCharacter", () => {
  it.each([
    ["a string", "a\u0000", []],
    ["a nested string", { a: { b: ["x", "y\u0000"] } }, ["a", "b", 1]],
    ["a key", { a: [{ "k\u0000": 1 }] }, ["a", 0, "k\u0000"]],
    ["the first of several", { a: "\u0000", b: "\u0000" }, ["a"]],
  ])("finds U+0000 in %s", (_what, value, loc) => {
    expect(findNulCharacter(value)).toEqual(loc);
  });

  it.each([
    ["clean values", { a: "b", c: [1, true, null, { d: "e" }] }],
    ["the six characters \\u0000 (an escaped backslash, not a NUL)", { a: "\\u0000" }],
    ["no body", undefined],
  ])("finds nothing in %s", (_what, value) => {
    expect(findNulCharacter(value)).toBeNull();
  });
});
