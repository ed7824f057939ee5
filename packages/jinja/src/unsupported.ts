import nunjucks from "nunjucks";
import { jinjaNodes, LEFT_OUT_FILTERS } from "./language";
import { applyNunjucksPatches } from "./nunjucks-patches";
import type { TemplateSourceError } from "./template-source-error";

// What nunjucks would only notice while rendering, and maybe never (a branch not taken): refused
// when a template is saved, with the line and the name (docs/templates.md, "Errors").

const UNSUPPORTED_TAGS: [string, string][] = [
  ["Extends", "extends"],
  ["Include", "include"],
  ["Import", "import"],
  ["FromImport", "from ... import"],
];

// Filters that take the name of another filter or test as a string argument, and its position.
const NAMED_BY_ARGUMENT: Record<string, { kind: "filter" | "test"; position: number }> = {
  map: { kind: "filter", position: 1 },
  select: { kind: "test", position: 1 },
  reject: { kind: "test", position: 1 },
  selectattr: { kind: "test", position: 2 },
  rejectattr: { kind: "test", position: 2 },
};

function unknownFilter(name: string, line: number): TemplateSourceError {
  const reason = Object.hasOwn(LEFT_OUT_FILTERS, name) ? LEFT_OUT_FILTERS[name] : null;
  return { line, message: reason ? `filter ${name} is not supported: ${reason}` : `unknown filter: ${name}` };
}

function checkNamedArgument(filter: nunjucks.AstNode, env: nunjucks.Environment): TemplateSourceError | null {
  const use = NAMED_BY_ARGUMENT[filter.name.value as string];
  const arg = use && filter.args.children[use.position];
  if (!arg || !(arg instanceof (nunjucks.nodes.Literal as any)) || typeof arg.value !== "string") return null;
  const known = use.kind === "filter" ? env.filters : env.tests;
  if (Object.hasOwn(known, arg.value)) return null;
  return use.kind === "filter"
    ? unknownFilter(arg.value, filter.lineno + 1)
    : { line: filter.lineno + 1, message: `unknown test: ${arg.value}` };
}

export function findUnsupported(source: string, env: nunjucks.Environment): TemplateSourceError | null {
  const ast = applyNunjucksPatches().parse(source, env);
  for (const [nodeType, tag] of UNSUPPORTED_TAGS) {
    const [node] = ast.findAll(nunjucks.nodes[nodeType]);
    if (node)
      return { line: node.lineno + 1, message: `${tag} is not supported: templates are self-contained` };
  }
  for (const filter of ast.findAll(nunjucks.nodes.Filter)) {
    const name: unknown = filter.name?.value;
    if (typeof name !== "string") continue;
    if (!Object.hasOwn(env.filters, name)) return unknownFilter(name, filter.lineno + 1);
    const named = checkNamedArgument(filter, env);
    if (named) return named;
  }
  for (const test of ast.findAll(jinjaNodes.Test)) {
    if (!Object.hasOwn(env.tests, test.name))
      return { line: test.lineno + 1, message: `unknown test: ${test.name}` };
  }
  return null;
}
