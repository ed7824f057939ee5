import { compileSource, formatSourceError } from "@svc/core";

/** Compiles one template string (a digest grouping key) at write time: null when fine, else the error. */
export function checkTemplateString(source: string): string | null {
  const compiled = compileSource(source);
  return compiled.ok ? null : formatSourceError("key", compiled.error);
}
