import { missingToken, preservedTokens } from "../preserved-tokens";

describe("preservedTokens", () => {
  it.each([
    ["3 new comments on PR 42", { links: [], numbers: ["3", "42"] }],
    [
      "Total 1,250.50 EUR at 09:30 on 2024/01/15",
      { links: [], numbers: ["1,250.50", "09:30", "2024/01/15"] },
    ],
    ["See https://x.example/pr/42?tab=1.", { links: ["https://x.example/pr/42?tab=1"], numbers: [] }],
    [
      "Leave: [[svc:unsubscribe_url]] (or https://a.example/b)",
      { links: ["[[svc:unsubscribe_url]]", "https://a.example/b"], numbers: [] },
    ],
    ["no digits here", { links: [], numbers: [] }],
  ])("%s", (text, expected) => {
    expect(preservedTokens(text)).toEqual(expected);
  });
});

describe("missingToken", () => {
  it.each([
    [
      "everything kept, reordered",
      "3 comments, see https://x.example/1",
      "See https://x.example/1 for 3 comments",
      null,
    ],
    ["a number dropped", "3 comments from 2 people", "Comments from 2 people", "3"],
    ["a number changed into a longer one", "5 comments", "15 comments", "5"],
    ["a link dropped", "Open https://x.example/1 now", "Open it now", "https://x.example/1"],
    ["a link altered", "Open https://x.example/1", "Open https://x.example/2", "https://x.example/1"],
    ["a placeholder dropped", "Stop: [[svc:unsubscribe_url]]", "Stop anytime", "[[svc:unsubscribe_url]]"],
    ["new numbers are allowed", "Some updates", "Some updates (3)", null],
  ])("%s", (_name, baseline, rewrite, expected) => {
    expect(missingToken(baseline, rewrite)).toBe(expected);
  });
});
