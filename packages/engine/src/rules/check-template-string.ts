import { compileSource } from "@svc/jinja";

/** Compiles one template string (a digest grouping key) at write time: null when fine, else the error (`line 1: …`). */
export function checkTemplateString(source: string): string | null {
  const compiled = compileSource(source);
  if (compiled.ok) return null;
  const { line, message } = compiled.error;
  return line === null ? message : `line ${line}: ${message}`; // the caller's `loc` names the field
}
