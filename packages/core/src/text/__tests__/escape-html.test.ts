import { escapeHtml } from "../escape-html";

test.each([
  ["plain", "plain"],
  [`<a href="x">Tom & 'Jerry'</a>`, "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"],
  ["&amp;", "&amp;amp;"],
])("escapeHtml(%j)", (input, expected) => {
  expect(escapeHtml(input)).toBe(expected);
});
