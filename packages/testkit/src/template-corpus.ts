// The hostile template corpus (docs/operations.md "Hostile input"): every filter, test and str
// method of the template language, each over adversarial inputs of about 1 MB (long runs of the
// characters that regular expressions and loops stumble on, long lists, wide dicts), with default
// arguments and with the arguments that make each one work hardest. The language's own lists of
// names are passed in, so a filter added later is in the corpus without anyone adding it here.

export interface CorpusCase {
  /** `filter wordwrap(5) on "a"×1M`, for messages and the report. */
  name: string;
  /** The template text; reads `data.x` (the input) and `data.y` (a second operand). */
  source: string;
  data: { x: unknown; y?: unknown };
}

export interface CorpusNames {
  filters: readonly string[];
  tests: readonly string[];
  strMethods: readonly string[];
}

type Input = [label: string, value: unknown];

/** The adversarial inputs, each about `size` characters (or items whose JSON is about that long). */
export function hostileInputs(size = 1_000_000): Input[] {
  const n = size;
  const repeat = (unit: string) => unit.repeat(Math.max(1, Math.floor(n / unit.length)));
  const strings: Input[] = [
    ['"<"×n', repeat("<")],
    ['"a"×n (one long word)', repeat("a")],
    ['"<a"×n', repeat("<a")],
    ['"<!--"×n', repeat("<!--")],
    ['" "×n then "x"', `${repeat(" ")}x`],
    ['"a "×n', repeat("a ")],
    ['"a-"×n', repeat("a-")],
    ['"-"×n', repeat("-")],
    ['"&"×n', repeat("&")],
    ['"&#" then digits', `&#${repeat("9")}`],
    ['"&lt;"×n', repeat("&lt;")],
    ['"\\n"×n', repeat("\n")],
    ['"\\r\\n"×n', repeat("\r\n")],
    ['"\\t"×n then "x"', `${repeat("\t")}x`],
    ['"😀"×n (astral)', repeat("😀")],
    ['")"×n then "x)"', `${repeat(")")}x)`],
    ['"("×n', repeat("(")],
    ['"www." then "a."×n then "!"', `www.${repeat("a.")}!`],
    ['"a@" then "a."×n then "!"', `a@${repeat("a.")}!`],
    ['"@"×n', repeat("@")],
    ['"http://" then "a"×n', `http://${repeat("a")}`],
    ['"%"×n', repeat("%")],
    ['"%s"×n', repeat("%s")],
    ['"{"×n', repeat("{")],
    ['"9"×n', repeat("9")],
    ['" 9"×n then " "', `${repeat(" 9")} `],
  ];
  // Each about `size` characters of JSON, like the strings.
  const others: Input[] = [
    [`ints×${Math.floor(n / 7)}`, Array.from({ length: Math.floor(n / 7) }, (_, i) => i)],
    [`"a"×${Math.floor(n / 4)} (list)`, Array.from({ length: Math.floor(n / 4) }, () => "a")],
    [
      `dicts×${Math.floor(n / 20)}`,
      Array.from({ length: Math.floor(n / 20) }, (_, i) => ({ a: i % 7, b: `v${i}` })),
    ],
    [`[[1]]×${Math.floor(n / 4)}`, Array.from({ length: Math.floor(n / 4) }, () => [1])],
    [
      `dict of ${Math.floor(n / 15)} keys`,
      Object.fromEntries(Array.from({ length: Math.floor(n / 15) }, (_, i) => [`k${i}`, i])),
    ],
    ["a list nested 60 deep around n chars", nest(60, repeat("a"))],
  ];
  return [...strings, ...others];
}

function nest(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

// Arguments that make each filter work hardest, beside calling it with none. `data.y` is a
// second operand of the same size as the input (a separator, a replacement).
const FILTER_ARGS: Record<string, string[]> = {
  attr: [],
  batch: ["3", "10000, 'x'"],
  center: ["10000"],
  default: ["'x', true"],
  dictsort: ["false, 'value'"],
  filesizeformat: ["true"],
  float: ["0"],
  format: ["1", "data.y"],
  groupby: ["'a'", "0"],
  indent: ["4, true, true", "data.y"],
  int: ["0, 16", "0, 0"],
  join: ["data.y", "', ', 'a'"],
  map: ["'upper'", "attribute='a', default='-'"],
  max: ["attribute='a'"],
  min: ["attribute='a'"],
  rejectattr: ["'a', 'odd'"],
  reject: ["'none'"],
  replace: ["'<', '<<<'", "'', 'xyz'", "'a', data.y", "'<', 'x', 1000000", "'', 'x', 1000000"],
  round: ["2, 'floor'"],
  selectattr: ["'a'"],
  select: ["'odd'"],
  slice: ["3", "10000, 'x'"],
  sort: ["true", "false, false, 'a'"],
  sum: ["start=[]", "'a'"],
  tojson: ["2"],
  dump: ["2"],
  trim: ["'ab'", "data.y"],
  truncate: ["10", "10, true", "1000000"],
  unique: ["false, 'a'"],
  urlize: ["10", "none, true, '_blank'"],
  wordwrap: ["5", "5, false", "5, true, '\\n', false", "79, true, data.y"],
  xmlattr: ["false"],
};

const TEST_ARGS: Record<string, string[]> = {
  divisibleby: ["3"],
  sameas: ["data.y"],
  in: ["data.y"],
  eq: ["data.y"],
  ne: ["data.y"],
  gt: ["data.y"],
  ge: ["data.y"],
  lt: ["data.y"],
  le: ["data.y"],
};

const METHOD_ARGS: Record<string, string[]> = {
  split: ["", "'a'", "none, 3"],
  rsplit: ["", "none, 3", "'a', 3"],
  splitlines: ["", "true"],
  replace: ["'a', 'bb'", "'', 'x', 1000000", "'a', data.y"],
  strip: ["", "'ab'", "data.y"],
  lstrip: ["", "'x'"],
  rstrip: ["", "'x'"],
  center: ["10000, 'x'"],
  ljust: ["10000, 'x'"],
  rjust: ["10000"],
  zfill: ["10000"],
  count: ["'a'", "''"],
  find: ["'ab'", "data.y"],
  rfind: ["'ab'"],
  index: ["''"],
  rindex: ["''"],
  startswith: ["data.y"],
  endswith: ["data.y"],
  partition: ["'a'"],
  rpartition: ["'a'"],
  join: ["data.y"],
  format: ["1", "data.y"],
  removeprefix: ["data.y"],
  removesuffix: ["data.y"],
};

/** Templates that exercise the operators and statements rather than one filter. */
const STATEMENTS: [name: string, source: string][] = [
  ["concatenation", "{{ data.x ~ data.y }}"],
  [
    "repeated concatenation",
    "{% set ns = namespace(s=data.x) %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}",
  ],
  ["addition", "{{ data.x + data.x }}"],
  ["repetition", "{{ data.x * 3 }}"],
  ["membership", "{{ data.y in data.x }}"],
  ["equality", "{{ data.x == data.y }}"],
  ["ordering", "{{ data.x < data.y }}"],
  ["printf", "{{ data.x % data.y }}"],
  ["reverse slice", "{{ data.x[::-1] | length }}"],
  ["printing", "{{ data.x }}"],
  ["loop over the input", "{% for c in data.x %}{{ c }}{% endfor %}"],
  ["nested loops over the input", "{% for a in data.x %}{% for b in data.x %}{% endfor %}{% endfor %}"],
  ["output in a loop", "{% for i in range(10000) %}{{ data.x }}{% endfor %}"],
  ["filter block", "{% filter upper %}{{ data.x }}{% endfilter %}"],
];

// The inputs each name is known to be worst on (the findings and what the full corpus
// found slowest before the fixes); the sampled corpus always includes them.
const WORST: Record<string, string[]> = {
  striptags: ['"<"×n', '"<!--"×n'],
  wordwrap: ['"a"×n (one long word)', '"\\n"×n'],
  urlize: ['")"×n then "x)"', '"a "×n'],
  trim: ['" "×n then "x"'],
  strip: ['" "×n then "x"'],
  rstrip: ['" "×n then "x"', '"\\t"×n then "x"'],
  int: ['" 9"×n then " "'],
  float: ['" 9"×n then " "'],
  replace: ['"<"×n'],
  sum: ["[[1]]×"],
  sort: ['"<"×n'],
  groupby: ['"9"×n'],
  pprint: ['"\\n"×n', "a list nested 60 deep around n chars"],
  tojson: ["dicts×"],
  batch: ['"a"×n (one long word)'],
  splitlines: ['"\\n"×n'],
};

export interface CorpusOptions {
  /** Characters (or JSON size) of each input; 1 MB by default. */
  size?: number;
  /**
   * Every name with every argument set over every input (about 7,000 renders; minutes). Without
   * it, each name and argument set runs on the inputs it is worst on plus `sample` others, taken
   * in turn so that every input is used (about 1,000 renders).
   */
  full?: boolean;
  sample?: number;
}

/** Every filter, test and str method over the inputs, with default and hard arguments. */
export function templateCorpus(names: CorpusNames, options: CorpusOptions = {}): CorpusCase[] {
  const size = options.size ?? 1_000_000;
  const sample = options.sample ?? 3;
  const inputs = hostileInputs(size);
  const strings = inputs.filter(([, x]) => typeof x === "string");
  const cases: CorpusCase[] = [];
  let turn = 0;
  /** All inputs, or the name's worst ones and `sample` others in turn. */
  const inputsFor = (name: string, from: Input[]): Input[] => {
    if (options.full) return from;
    const worst = from.filter(([label]) => (WORST[name] ?? []).some((w) => label.startsWith(w)));
    const others = from.filter((input) => !worst.includes(input));
    const picked = Array.from(
      { length: Math.min(sample, others.length) },
      () => others[turn++ % others.length]!,
    );
    return [...worst, ...new Set(picked)];
  };
  const add = (name: string, source: string, x: unknown, y?: unknown) =>
    cases.push({ name, source, data: y === undefined ? { x } : { x, y } });
  const secondOperand = (x: unknown) => (typeof x === "string" ? x : "a".repeat(size));

  for (const filter of names.filters) {
    for (const args of ["", ...(FILTER_ARGS[filter] ?? [])]) {
      const call = args ? `${filter}(${args})` : filter;
      for (const [label, x] of inputsFor(filter, inputs))
        add(`filter ${call} on ${label}`, `{{ data.x | ${call} }}`, x, args ? secondOperand(x) : undefined);
    }
  }
  for (const test of names.tests) {
    // Symbolic tests (`==`, `<`) cannot follow `is`; select() calls them by name.
    const source = /^\w+$/.test(test)
      ? `{{ data.x is ${test} }}`
      : `{{ [data.x] | select('${test}', data.x) | list | length }}`;
    for (const [label, x] of inputsFor(test, inputs)) add(`test ${test} on ${label}`, source, x);
    for (const args of TEST_ARGS[test] ?? []) {
      for (const [label, x] of inputsFor(test, inputs))
        add(`test ${test}(${args}) on ${label}`, `{{ data.x is ${test}(${args}) }}`, x, x);
    }
  }
  for (const method of names.strMethods) {
    for (const args of METHOD_ARGS[method] ?? [""]) {
      for (const [label, x] of inputsFor(method, strings))
        add(`method ${method}(${args}) on ${label}`, `{{ data.x.${method}(${args}) }}`, x, x);
    }
  }
  for (const [name, source] of STATEMENTS) {
    for (const [label, x] of inputsFor(name, inputs)) add(`${name} on ${label}`, source, x, x);
  }
  return cases;
}
