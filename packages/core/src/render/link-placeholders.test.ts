import { fillLinkPlaceholders, hasLinkPlaceholders, linkPlaceholder } from "./link-placeholders";

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
});
