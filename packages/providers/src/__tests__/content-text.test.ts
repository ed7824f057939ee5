import { bodyWithLink, textToHtml } from "../content-text";

describe("bodyWithLink", () => {
  it.each([
    ["Hi", "https://a.example/x", "Hi\n\nhttps://a.example/x"],
    ["See https://a.example/x now", "https://a.example/x", "See https://a.example/x now"],
    ["Hi", null, "Hi"],
    ["", "https://a.example/x", "https://a.example/x"],
  ])("%p + %p", (body, url, expected) => expect(bodyWithLink(body, url)).toBe(expected));
});

describe("textToHtml", () => {
  it("escapes the text, keeps paragraphs and line breaks, and links the url", () => {
    expect(textToHtml("A <b>", "One & two\nthree\n\n<script>", "https://a.example/?a=1&b=2")).toBe(
      [
        "<!doctype html>",
        '<html><head><meta charset="utf-8"><title>A &lt;b&gt;</title></head>',
        '<body><p>One &amp; two<br>three</p><p>&lt;script&gt;</p><p><a href="https://a.example/?a=1&amp;b=2">https://a.example/?a=1&amp;b=2</a></p></body></html>',
      ].join("\n"),
    );
  });
});
