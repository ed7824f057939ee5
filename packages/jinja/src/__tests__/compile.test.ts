import { normaliseSource, renderSource } from "../compile";
import { LruCache } from "../lru-cache";

const context = {
  data: { name: "Ann", items: [1, 2], obj: { a: 1 }, html: "<b>&</b>" },
  recipient: {},
  event: {},
};

describe("renderSource: the Jinja2 subset", () => {
  it.each([
    ["Hi {{ data.name }}!", "Hi Ann!"],
    ["{{ nope }}|{{ data.missing }}|{{ data.x.y.z }}", "||"],
    ["{{ 'a' ~ nope ~ 'b' }}", "ab"],
    ["{{ nope | default('d') }}|{{ data.name | default('d') }}", "d|Ann"],
    ["{{ data.items | length }}", "2"], // the payload's `items` key wins over dict.items()
    ["{{ data.obj.items() | length }}", "1"],
    ["{% for k, v in data.obj | dictsort %}{{ k }}={{ v }}{% endfor %}", "a=1"],
    ["{{ data.name.upper() }} {{ data.name | upper }} {{ '  x '.strip() }}", "ANN ANN x"],
    ["{{ 'hello world'.title() }} {{ 'abc'.startswith('a') }}", "Hello World True"],
    ["{{ [1, 2, 3][1:] | join(',') }}", "2,3"],
    ["{% if None is none and True %}yes{% endif %}", "yes"],
    ["{% for i in range(3) %}{{ loop.index }}{% if not loop.last %},{% endif %}{% endfor %}", "1,2,3"],
    ["{% set x = 2 %}{{ x * 3 }} {{ 7 // 2 }} {{ 2 ** 3 }}", "6 3 8"],
    ["{{ data.html }}", "<b>&</b>"], // no autoescape outside HTML
    ["{{ 'x' | center(5) }}|", "  x  |"],
    ["line\r\nnext\n", "line\nnext"], // newlines normalised, one trailing newline dropped
    ["{% if true %}\nA\n{% endif %}\n", "\nA\n"], // no trim_blocks, like Jinja2
    ["{{ range.constructor }}|{{ data.__proto__ }}|{{ data['constructor'] }}", "||"],
    ["{% macro hi(n) %}Hi {{ n }}{% endmacro %}{{ hi('Bo') }}", "Hi Bo"],
  ])("%j -> %j", (source, expected) => {
    expect(renderSource(source, context)).toEqual({ ok: true, text: expected });
  });

  it("autoescapes in HTML mode only", () => {
    expect(renderSource("{{ data.html }}|{{ data.html | safe }}", context, { html: true })).toEqual({
      ok: true,
      text: "&lt;b&gt;&amp;&lt;/b&gt;|<b>&</b>",
    });
  });

  it("does not let a template change the caller's objects through lookups", () => {
    const data = { list: [1, 2, 3] };
    renderSource("{{ data.list.append(4) }}", { data });
    // renderSource works on what it is given; renderTemplate is the layer that copies (see its test).
    expect(data.list).toEqual([1, 2, 3, 4]);
  });
});

describe("renderSource errors", () => {
  it.each([
    ["a\nb\nc {{ foo() }}", 3, "Unable to call `foo`, which is undefined or falsey"],
    ["{{ foo() }}", 1, "Unable to call `foo`, which is undefined or falsey"],
    ["a\nb\n{{ 1 + }}", 3, "unexpected token: }}"],
    ["a\n{% if x %}\nb", 3, "expected elif, else, or endif, got end of file"],
    ["{{ x | nosuch }}", 1, "unknown filter: nosuch"],
    ["a\n{% if false %}{{ x | nosuch }}{% endif %}", 2, "unknown filter: nosuch"],
    ["a\nb\n{{ 1 / 0 }}", 3, "division by zero"],
    ["{{ x }}\n{{ data.n + 1 }}", 2, "an undefined value cannot be used with +"],
    ["{{ 'No. ' + 5 }}", 1, 'can only concatenate str (not "int") to str'],
    ["line\n{% for i in 5 %}{% endfor %}", 2, "'int' object is not iterable"],
    ["\n{{ 'a' < 1 }}", 2, "'<' not supported between instances of 'str' and 'int'"],
    ["a\n{{ x is nosuch }}", 2, "unknown test: nosuch"],
    ["{% if false %}{{ x is not divisibleby 3 or x is bogus(1) }}{% endif %}", 1, "unknown test: bogus"],
    [
      "{{ x | attr('y') }}",
      1,
      "filter attr is not supported: it reads Python object attributes, and template data has none",
    ],
    ["\n\n{{ items | map('nosuch') | list }}", 3, "unknown filter: nosuch"],
    ["{% if x %}\n{{ items | selectattr('a', 'nosuch') | list }}{% endif %}", 2, "unknown test: nosuch"],
    ["{% for x in y %}{% set z %}{{ x | bogus }}{% endset %}{% endfor %}", 1, "unknown filter: bogus"],
    ["{% for x in y if x is bogus %}{% endfor %}", 1, "unknown test: bogus"],
    ["{% include 'x' %}", 1, "include is not supported: templates are self-contained"],
    ["x\n{% extends 'base' %}", 2, "extends is not supported: templates are self-contained"],
    ["{% import 'm' as m %}", 1, "import is not supported: templates are self-contained"],
    ["{% from 'm' import a %}", 1, "from ... import is not supported: templates are self-contained"],
    [
      "{{ range.constructor('return 1')() }}",
      1,
      'Unable to call `range["constructor"]`, which is undefined or falsey',
    ],
    ["{{ data.items() }}", 1, 'Unable to call `data["items"]`, which is not a function'],
    [
      "{% for i in range(1000000000) %}{% endfor %}",
      1,
      "render limit exceeded: more than 10000 items in ranges",
    ],
    ["{% for i in range(10001) %}{% endfor %}", 1, "render limit exceeded: more than 10000 items in ranges"],
    [
      "{% for i in range(200) %}{% for j in range(200) %}{% endfor %}{% endfor %}",
      1,
      "render limit exceeded: more than 10000 items in ranges",
    ],
    ["{{ range(1, 'x') }}", 1, "'str' object cannot be interpreted as an integer"],
    ["\n{{ 'x' | center(100000) }}", 2, "render limit exceeded: center() size above 10000"],
    ["{{ range(1) }}\n\n{{ 'x' | center(100000) }}", 3, "render limit exceeded: center() size above 10000"],
    ["{{ 'x' | indent(100000) }}", 1, "render limit exceeded: indent() size above 10000"],
    ["{{ 'x'.center(100000) }}", 1, "render limit exceeded: center() size above 10000"],
    ["{{ '-' * 20000 }}", 1, "render limit exceeded: * count above 10000"],
    ["{{ ('x' * 10000) * 200 }}", 1, "render limit exceeded: * builds more than 1000000"],
    ["{{ '%99999d' % 1 }}", 1, "render limit exceeded: format width above 10000"],
    ["{{ '{:.99999f}'.format(1) }}", 1, "render limit exceeded: format precision above 10000"],
    ["{{ 'x'.rjust(99999) }}", 1, "render limit exceeded: width above 10000"],
    ["{{ 1.5 | round(99999) }}", 1, "render limit exceeded: round() precision above 10000"],
    ["{{ [1] | tojson(99999) }}", 1, "render limit exceeded: tojson() indent above 10000"],
    ["{{ [1] | slice(100000) }}", 1, "render limit exceeded: slice() size above 10000"],
    ["{{ [1] | batch(100000, 'x') }}", 1, "render limit exceeded: batch() size above 10000"],
    [
      "{% set ns = namespace(s='ab') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
      1,
      "render limit exceeded: ~ builds more than 10000000",
    ],
  ])("%j -> line %i: %s", (source, line, message) => {
    expect(renderSource(source, { data: { items: [1] } })).toEqual({ ok: false, error: { line, message } });
  });

  it("stops a template that would run for ages at the time limit", () => {
    const exponential =
      "{% macro f(n) %}{% if n > 0 %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(40) }}";
    const started = performance.now();
    const result = renderSource(exponential, {}, { timeLimitMs: 50 });
    expect(result).toEqual({
      ok: false,
      error: { line: null, message: "render limit exceeded: took longer than 50 ms" },
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("gives every render a fresh budget", () => {
    expect(renderSource("{% for i in range(8000) %}{% endfor %}ok", {})).toEqual({ ok: true, text: "ok" });
    expect(renderSource("{% for i in range(8000) %}{% endfor %}ok", {})).toEqual({ ok: true, text: "ok" });
  });

  it("normaliseSource drops exactly one trailing newline", () => {
    expect(normaliseSource("a\n\n")).toBe("a\n");
    expect(normaliseSource("a\r\n")).toBe("a");
    expect(normaliseSource("a\rb")).toBe("a\nb");
  });
});

describe("LruCache", () => {
  it("evicts the least recently used entry", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1); // a is now the most recent
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(1);
    expect(cache.get("c")).toBe(3);
    expect(cache.size).toBe(2);
  });
});
