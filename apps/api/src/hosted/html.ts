import { createHash } from "node:crypto";
import type { Response } from "express";
import { escapeHtml } from "@svc/core";

// Shared pieces of the hosted pages: escaping, one small stylesheet, the page frame, and headers
// that keep the token in the URL private (no referrer, no caching, no framing, no scripts).

/** Tagged template that escapes every interpolation unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = string | number | Html | null | undefined | false | readonly Part[];

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return "";
  if (Array.isArray(part)) return part.map(render).join("");
  if (part instanceof Html) return part.value;
  return escapeHtml(String(part));
};

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(
    strings.reduce((out, s, i) => out + s + (i < parts.length ? render(parts[i] as Part) : ""), ""),
  );
}

const STYLE = `
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f6f4;margin:0}
main{max-width:36rem;margin:2rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.5rem;margin-top:0}
fieldset{border:1px solid #c8c8c8;border-radius:6px;margin:0 0 1.25rem;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;margin:.35rem 0}
.choice input{margin-top:.3rem;width:1.1rem;height:1.1rem}
.hint{color:#555;font-size:.9rem;margin:.25rem 0 .5rem}
.times{display:flex;gap:1.5rem;flex-wrap:wrap}
.times label{display:flex;flex-direction:column;font-size:.95rem}
input[type=time]{font:inherit;padding:.3rem}
button{font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:6px;padding:.6rem 1.2rem;cursor:pointer}
button:hover{background:#1e40af}
:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.status{background:#ecfdf5;border:1px solid #059669;padding:.75rem 1rem;border-radius:6px}
.errors{background:#fef2f2;border:1px solid #b91c1c;padding:.75rem 1rem;border-radius:6px}
.notice{background:#eff6ff;border:1px solid #93c5fd;padding:.75rem 1rem;border-radius:6px}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0}
.facts dt{font-weight:600}.facts dd{margin:0}
.message{border-left:4px solid #8a8a8a;padding:.25rem 1rem;margin-bottom:1.25rem}
.message-text{white-space:pre-wrap;overflow-wrap:anywhere}
.decision{margin:1rem 0}
textarea{display:block;box-sizing:border-box;width:100%;font:inherit;padding:.4rem;margin:.25rem 0 .75rem;border:1px solid #767676;border-radius:4px}
button.approve{background:#047857}button.approve:hover{background:#065f46}
button.reject{background:#b91c1c}button.reject:hover{background:#991b1b}
.code{background:#f3f4f6;border-radius:6px;padding:.75rem;margin:.5rem 0 1rem;white-space:pre-wrap;overflow-wrap:anywhere;font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.code .add{background:#dcfce7;display:block}.code .del{background:#fee2e2;display:block}.code .hunk{color:#6b7280;display:block}
`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/** The list of what to correct at the top of a form, or nothing. */
export function errorSummary(heading: string, errors: readonly string[]): Html | null {
  if (errors.length === 0) return null;
  return html`<div class="errors" role="alert" id="errors">
    <p><strong>${heading}</strong></p>
    <ul>
      ${errors.map((e) => html`<li>${e}</li>`)}
    </ul>
  </div>`;
}

export function page(options: { lang: string; title: string; body: Html }): string {
  return `<!doctype html>
<html lang="${escapeHtml(options.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${options.body.value}
</main>
</body>
</html>
`;
}

/** Headers for every hosted response: the path holds a credential. */
export function setHostedHeaders(res: Response): void {
  res.set({
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  });
}

export function sendPage(res: Response, status: number, document: string): void {
  res.status(status).type("text/html; charset=utf-8").send(document);
}
