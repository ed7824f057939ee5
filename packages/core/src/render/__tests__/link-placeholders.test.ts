import {
  fillLinkPlaceholders,
  fillLinkPlaceholdersIn,
  hasLinkPlaceholders,
  linkPlaceholder,
} from "../link-placeholders";

describe("link placeholders", () => {
  const text = `Manage: ${linkPlaceholder("preferences_url")} | Leave: ${linkPlaceholder("unsubscribe_url")} | [[svc:other]]`;

  it("fills the given URLs and blanks the rest", () => {
    expect(fillLinkPlaceholders(text, { preferences_url: "https://x/p/1?a=1&b=2" })).toBe(
      "Manage: https://x/p/1?a=1&b=2 | Leave:  | ",
    );
  });

  it("escapes URLs for HTML bodies", () => {
    expect(
      fillLinkPlaceholders(
        `<a href="${linkPlaceholder("review_url")}">`,
        { review_url: 'https://x/r?a=1&b="2"' },
        { html: true },
      ),
    ).toBe('<a href="https://x/r?a=1&amp;b=&quot;2&quot;">');
  });

  it("detects placeholders", () => {
    expect(linkPlaceholder("unsubscribe_url")).toBe("[[svc:unsubscribe_url]]");
    expect(hasLinkPlaceholders(text)).toBe(true);
    expect(hasLinkPlaceholders("plain https://x")).toBe(false);
  });

  it("fills every string inside a JSON value, keeping untouched parts as they are", () => {
    const nested = { keep: [1, "a"], flag: true };
    const data = {
      review_url: linkPlaceholder("review_url"),
      nested,
      list: ["x", `see ${linkPlaceholder("preferences_url")}`, null, 3],
      deeper: { unsub: linkPlaceholder("unsubscribe_url") },
    };
    const filled = fillLinkPlaceholdersIn(data, {
      review_url: "https://x/r/1",
      preferences_url: "https://x/p/1",
    });
    expect(filled).toEqual({
      review_url: "https://x/r/1",
      nested: { keep: [1, "a"], flag: true },
      list: ["x", "see https://x/p/1", null, 3],
      deeper: { unsub: "" },
    });
    expect(filled.nested).toBe(nested);
    expect(data.review_url).toBe("[[svc:review_url]]");
    const plain = { a: "b", c: [1] };
    expect(fillLinkPlaceholdersIn(plain, { review_url: "https://x" })).toBe(plain);
  });
});
