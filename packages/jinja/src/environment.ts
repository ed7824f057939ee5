import nunjucks from "nunjucks";
import { setUpJinjaEnvironment } from "./language";

// The two Jinja2 environments of the process (docs/templates.md): plain text and autoescaped
// HTML. They hold Jinja2's filters, tests, globals and the `with` tag; templates compile and run
// on them with the Jinja2 parser, compiler and runtime of nunjucks-patches.ts.

function createEnvironment(html: boolean): nunjucks.Environment {
  // Jinja2 defaults: no trim_blocks, no lstrip_blocks, undefined prints as "" (not an error).
  const env = new nunjucks.Environment(null, {
    autoescape: html,
    throwOnUndefined: false,
    trimBlocks: false,
    lstripBlocks: false,
  });
  setUpJinjaEnvironment(env);
  return env;
}

let environments: { text: nunjucks.Environment; html: nunjucks.Environment } | null = null;

export function getEnvironment(html: boolean): nunjucks.Environment {
  environments ??= { text: createEnvironment(false), html: createEnvironment(true) };
  return html ? environments.html : environments.text;
}
