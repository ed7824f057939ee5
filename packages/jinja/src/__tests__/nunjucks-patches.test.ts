import nunjucks from "nunjucks";
import { renderSource } from "../compile";
import { jinjaNodes } from "../language";
import {
  appliedNunjucksPatches,
  applyNunjucksPatches,
  NUNJUCKS_PATCHES,
  type NunjucksPatch,
} from "../nunjucks-patches";
import { RenderLimitError, withRenderBudget } from "../render-budget";

// The patches of nunjucks-patches.ts: each applied once, each on a private subclass or copy (nunjucks'
// own classes and runtime unchanged), and each doing what it is for. jest gives this file a fresh
// nunjucks, so what nunjucks looked like before the patches is read first.

const Tokenizer = nunjucks.lexer.lex("").constructor;
const SHARED: Record<string, object> = {
  "lexer's Tokenizer": Tokenizer.prototype,
  "parser's Parser": nunjucks.parser.Parser.prototype,
  "compiler's Compiler": nunjucks.compiler.Compiler.prototype,
  "runtime's Frame": nunjucks.runtime.Frame.prototype,
  Template: nunjucks.Template.prototype,
  runtime: nunjucks.runtime,
};
const before = Object.fromEntries(
  Object.entries(SHARED).map(([name, object]) => [name, Object.getOwnPropertyDescriptors(object)]),
);
const nodeTableBefore = { ...nunjucks.nodes };
const countsBefore = appliedNunjucksPatches();

const render = (source: string, data: unknown = {}, html = false) => renderSource(source, { data }, { html });
const text = (source: string, data: unknown = {}, html = false) => {
  const result = render(source, data, html);
  if (!result.ok) throw new Error(`${source}: ${result.error.message}`);
  return result.text;
};

/** Whether `step` ticks the render budget: 256 ticks read the clock, here past the deadline. */
function ticks(step: () => unknown): boolean {
  try {
    withRenderBudget(-1, () => {
      for (let i = 0; i < 256; i++) step();
    });
    return false;
  } catch (e) {
    if (e instanceof RenderLimitError) return true;
    throw e;
  }
}

describe("nunjucks patches", () => {
  it("are not applied by importing the module", () => {
    for (const name of NUNJUCKS_PATCHES) expect(countsBefore[name]).toBe(0);
  });

  it("are applied exactly once, however often asked and however much is rendered", () => {
    const first = applyNunjucksPatches();
    expect(applyNunjucksPatches()).toBe(first);
    for (let i = 0; i < 3; i++) text("{% for x in [1, 2] %}{{ x }}{% endfor %}");
    expect(applyNunjucksPatches()).toBe(first);
    const once = Object.fromEntries(NUNJUCKS_PATCHES.map((name) => [name, 1])) as Record<
      NunjucksPatch,
      number
    >;
    expect(appliedNunjucksPatches()).toEqual(once);
  });

  it("leave nunjucks' own classes and runtime as they were", () => {
    text("{{ (1, 2) }}{{ 'a'.upper() }}{% for x in [1] %}{{ x }}{% endfor %}");
    for (const [name, object] of Object.entries(SHARED))
      expect([name, Object.getOwnPropertyDescriptors(object)]).toEqual([name, before[name]]);
  });

  it("only add the Jinja2 node types to nunjucks' node table", () => {
    applyNunjucksPatches();
    const added = Object.keys(nunjucks.nodes).filter((name) => !Object.hasOwn(nodeTableBefore, name));
    expect(added.sort()).toEqual(
      Object.values(jinjaNodes)
        .map((type) => new type(0, 0).typename)
        .sort(),
    );
    for (const [name, type] of Object.entries(nodeTableBefore)) expect(nunjucks.nodes[name]).toBe(type);
  });

  it("leave a plain nunjucks environment with nunjucks' own language", () => {
    applyNunjucksPatches();
    const env = new nunjucks.Environment(null, { autoescape: false });
    expect(new nunjucks.Template("{{ true }}|{{ [1, 2] }}", env).render({})).toBe("true|1,2");
    expect(text("{{ true }}|{{ [1, 2] }}")).toBe("True|[1, 2]");
  });
});

describe("the patched behaviours", () => {
  it("tokenizer: Python's string escapes, and `}}` closing a nested dict", () => {
    expect(text("{{ '\\x41\\u00e9\\n' }}")).toBe("A\u00e9\n");
    expect(text("{{ {'a': {'b': 1}} }}")).toBe("{'a': {'b': 1}}");
  });

  it("parser: Jinja2's grammar (tuples, slices, tests with arguments, integer literals, with)", () => {
    expect(text("{{ (1, 2) }}")).toBe("(1, 2)");
    expect(text("{{ [1, 2, 3][1:] }}")).toBe("[2, 3]");
    expect(text("{{ 9 is divisibleby 3 }}")).toBe("True");
    expect(text("{{ 0x1F + 1_000 }}")).toBe("1031");
    expect(text("{% with a = 1, b = 2 %}{{ a + b }}{% endwith %}")).toBe("3");
  });

  it("compiler: Python's operators, Jinja2's scoping, macros as Markup only under autoescape", () => {
    expect(text("{{ 7 // 2 }} {{ 2 ** 10 }} {{ 7 % 3 }}")).toBe("3 1024 1");
    expect(render("{{ 'a' + 1 }}")).toMatchObject({ ok: false });
    expect(text("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}")).toBe("1");
    const macro = "{% macro m() %}<b>{% endmacro %}{{ m() }}|{{ m() | upper }}";
    expect(text(macro, {}, true)).toBe("<b>|<B>");
    expect(text("{% macro m() %}<b>{% endmacro %}{{ m() | escape }}", {}, false)).toBe("&lt;b&gt;");
  });

  it("compiler: a failing filter is reported on its own line", () => {
    expect(render("one\ntwo\n{{ 'x' | center(100000) }}")).toEqual({
      ok: false,
      error: { line: 3, message: "render limit exceeded: center() size above 10000" },
    });
  });

  it("runtime: values printed as Python prints them, lookups only into data and Python methods", () => {
    expect(text("{{ none }} {{ 12.0 }} {{ {'a': [true]} }}")).toBe("None 12.0 {'a': [True]}");
    expect(text("[{{ data.constructor }}][{{ data.__proto__ }}]", { a: 1 })).toBe("[][]");
    expect(text("{{ 'abc'.upper() }} {{ data.get('a') }}", { a: 1 })).toBe("ABC 1");
  });

  it("runtime: every output, lookup and call ticks the render budget (nunjucks' own do not)", () => {
    const { runtime } = applyNunjucksPatches();
    const upper = () => "A";
    expect(ticks(() => runtime.suppressValue("x", false))).toBe(true);
    expect(ticks(() => runtime.memberLookup({ a: 1 }, "a"))).toBe(true);
    expect(ticks(() => runtime.callWrap(upper, "upper", {}, []))).toBe(true);
    expect(ticks(() => nunjucks.runtime.suppressValue("x", false))).toBe(false);
    expect(ticks(() => nunjucks.runtime.memberLookup({ a: 1 }, "a"))).toBe(false);
    expect(ticks(() => nunjucks.runtime.callWrap(upper, "upper", {}, []))).toBe(false);
  });

  it("runtime: an error notes its line for the render's result", () => {
    expect(render("one\n{% for i in 5 %}{% endfor %}")).toEqual({
      ok: false,
      error: { line: 2, message: "'int' object is not iterable" },
    });
  });

  it("frame: every loop step ticks the budget, in frames pushed from frames too", () => {
    const { runtime } = applyNunjucksPatches();
    const frame = new runtime.Frame().push();
    expect(frame).toBeInstanceOf(runtime.Frame);
    expect(ticks(() => frame.set("x", 1))).toBe(true);
    expect(ticks(() => new nunjucks.runtime.Frame().set("x", 1))).toBe(false);
    const loop = renderSource("{% for i in range(5000) %}{% endfor %}", {}, { timeLimitMs: -1 });
    expect(loop).toEqual({
      ok: false,
      error: { line: null, message: "render limit exceeded: took longer than -1 ms" },
    });
  });

  it("template: compiles with the Jinja2 compiler and runs on the Jinja2 runtime", () => {
    const { Template } = applyNunjucksPatches();
    const env = new nunjucks.Environment(null, { autoescape: false });
    expect(new Template("{{ [1, 2] }}", env).render({})).toBe("[1, 2]");
  });
});
