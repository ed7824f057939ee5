// Where svc deliberately renders differently from Jinja2 3.1, one example each. docs/templates.md
// ("Differences from Jinja2") shows the same rows, and jinja-parity.test.ts checks both columns:
// svc gives `svc`, and the real Jinja2 gives `jinja2` (an error, or text starting with a prefix).

export interface Difference {
  topic: string;
  source: string;
  /** The render context as JSON text, so both sides parse the very same payload. */
  context: string;
  svc: string | { error: string };
  jinja2: string | { error: string } | { startsWith: string };
}

export const DIFFERENCES: Difference[] = [
  {
    topic: "A whole number in the event data is an int: JSON parsing keeps no `.0`.",
    source: "{{ data.price }}",
    context: '{"data": {"price": 12.0}}',
    svc: "12",
    jinja2: "12.0",
  },
  {
    topic: "A payload key wins over a dict method of the same name (`items`, `keys`, `values`, `get`...).",
    source: "{{ data.items | length }}",
    context: '{"data": {"items": ["tea", "mug"]}}',
    svc: "2",
    jinja2: { error: "TypeError" },
  },
  {
    topic:
      "`for key, value in a_dict` walks the dict's items; Jinja2 unpacks each key. `.items()` works in both.",
    source: "{% for k, v in data.codes %}{{ k }}={{ v }} {% endfor %}",
    context: '{"data": {"codes": {"ab": 1, "cd": 2}}}',
    svc: "ab=1 cd=2 ",
    jinja2: "a=b c=d ",
  },
  {
    topic:
      "Filters that give a generator in Jinja2 (map, select, reject, selectattr, rejectattr, unique, batch, slice, items, reverse of a list) give a list, which prints as one.",
    source: "{{ [1, 2, 3] | map('string') }}",
    context: '{"data": {}}',
    svc: "['1', '2', '3']",
    jinja2: { startsWith: "<generator object" },
  },
  {
    topic: "Numbers are JavaScript doubles: integers beyond 2**53 lose precision.",
    source: "{{ 2 ** 64 + 1 }}",
    context: '{"data": {}}',
    svc: "18446744073709551616",
    jinja2: "18446744073709551617",
  },
  {
    topic:
      "Dict keys that look like integers come first (JavaScript object order), in data and in dict literals.",
    source: "{{ data.marks }}",
    context: '{"data": {"marks": {"b": 1, "2": 2}}}',
    svc: "{'2': 2, 'b': 1}",
    jinja2: "{'b': 1, '2': 2}",
  },
  {
    topic: "Dict keys are strings: a number as a dict literal key becomes text.",
    source: "{{ {1: 'a'} }}",
    context: '{"data": {}}',
    svc: "{'1': 'a'}",
    jinja2: "{1: 'a'}",
  },
  {
    topic:
      "`striptags` decodes numeric and the common named character references; rare HTML5 names stay as written.",
    source: "{{ 'a &SmallCircle; b' | striptags }}",
    context: '{"data": {}}',
    svc: "a &SmallCircle; b",
    jinja2: "a ∘ b",
  },
  {
    topic: "A macro called with more arguments than it declares ignores the extra ones.",
    source: "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}",
    context: '{"data": {}}',
    svc: "1",
    jinja2: { error: "TypeError" },
  },
  {
    topic:
      "Render limits: `range()` gives at most 10,000 numbers per field, and sizes (`*` repetition, center, indent, batch, slice) go up to 10,000.",
    source: "{{ range(20000) | length }}",
    context: '{"data": {}}',
    svc: { error: "render limit exceeded: more than 10000 items in ranges" },
    jinja2: "20000",
  },
  {
    topic:
      "svc keeps two filters and three tests from its earlier nunjucks setup: `dump`, `nl2br`, `truthy`, `falsy`, `null`.",
    source: "{{ {'a': [1, 2]} | dump }}",
    context: '{"data": {}}',
    svc: '{"a":[1,2]}',
    jinja2: { error: "TemplateAssertionError" },
  },
];
