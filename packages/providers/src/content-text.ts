import { escapeHtml } from "@svc/core";
// Plain renderings of a message's content for channels that have no separate link field.

/** The body, with the link on its own line when the body does not already show it. */
export function bodyWithLink(body: string, url: string | null): string {
  if (!url || body.includes(url)) return body;
  return body === "" ? url : `${body}\n\n${url}`;
}

/** A minimal HTML document for a text body: paragraphs on blank lines, line breaks kept. */
export function textToHtml(title: string, body: string, url: string | null): string {
  const paragraphs = body
    .split(/\n{2,}/)
    .filter((paragraph) => paragraph.trim() !== "")
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`);
  if (url && !body.includes(url)) {
    paragraphs.push(`<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`);
  }
  return [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    `<body>${paragraphs.join("")}</body></html>`,
  ].join("\n");
}
