import { createHash } from "node:crypto";
import type nunjucks from "nunjucks";
import { getEnvironment } from "./environment";
import { LruCache } from "./lru-cache";
import { applyNunjucksPatches } from "./nunjucks-patches";
import { findUnsupported } from "./unsupported";
import type { TemplateSourceError } from "./template-source-error";
import { currentErrorLine, RENDER_TIME_LIMIT_MS, withRenderBudget } from "./render-budget";

export type CompiledSource =
  { ok: true; template: nunjucks.Template } | { ok: false; error: TemplateSourceError };

export type RenderedString = { ok: true; text: string } | { ok: false; error: TemplateSourceError };

export interface StringRenderOptions {
  /** Autoescape output for HTML (e-mail bodies). */
  html?: boolean;
  timeLimitMs?: number;
}

export const COMPILE_CACHE_SIZE = 1000;

// Rendering is the hot path and the same few templates come back all the time.
const compiled = new LruCache<string, CompiledSource>(COMPILE_CACHE_SIZE);

/** Jinja2 reads templates with newlines normalised to `\n` and drops one trailing newline. */
export function normaliseSource(source: string): string {
  return source.replace(/\r\n?/g, "\n").replace(/\n$/, "");
}

export function compileSource(source: string, options: { html?: boolean } = {}): CompiledSource {
  const html = options.html === true;
  const cacheKey = createHash("sha256")
    .update(`${html ? "html" : "text"}\n${source}`)
    .digest("hex");
  const cached = compiled.get(cacheKey);
  if (cached) return cached;
  const result = compileUncached(normaliseSource(source), html);
  compiled.set(cacheKey, result);
  return result;
}

function compileUncached(source: string, html: boolean): CompiledSource {
  const env = getEnvironment(html);
  try {
    const template = new (applyNunjucksPatches().Template)(source, env);
    template.compile();
    const unsupported = findUnsupported(source, env);
    return unsupported ? { ok: false, error: unsupported } : { ok: true, template };
  } catch (e) {
    return { ok: false, error: describeCompileError(e, source) };
  }
}

function describeCompileError(e: unknown, source: string): TemplateSourceError {
  const raw = e instanceof Error ? e.message : String(e);
  const lineno = (e as { lineno?: unknown }).lineno;
  // Parser errors at the end of input carry no position; they belong to the last line.
  const line = typeof lineno === "number" ? lineno : source.split("\n").length;
  return { line, message: cleanMessage(raw) };
}

function cleanMessage(raw: string): string {
  const lines = raw
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !/^\(.*\)( \[Line .*\])?$/.test(l));
  const last = lines[lines.length - 1] ?? raw;
  return (
    last.replace(/^(Template render error: |[A-Za-z]*Error: )+/, "").replace(/^parse\w*: /, "") ||
    "render failed"
  );
}

/** Renders one template string; never throws and never runs past the time limit. */
export function renderSource(
  source: string,
  context: object,
  options: StringRenderOptions = {},
): RenderedString {
  const compiledSource = compileSource(source, options);
  if (!compiledSource.ok) return compiledSource;
  return withRenderBudget(options.timeLimitMs ?? RENDER_TIME_LIMIT_MS, () => {
    try {
      return { ok: true, text: compiledSource.template.render(context) } as const;
    } catch (e) {
      const raw = e instanceof Error ? e.message : String(e);
      const line = currentErrorLine();
      return {
        ok: false,
        error: { line: line === null ? null : line + 1, message: cleanMessage(raw) },
      } as const;
    }
  });
}

export function formatSourceError(field: string, error: TemplateSourceError): string {
  return error.line === null
    ? `${field}: ${error.message}`
    : `${field}: line ${error.line}: ${error.message}`;
}
