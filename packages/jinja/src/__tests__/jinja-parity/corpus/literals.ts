import { cases } from "./types";

// Literals and how values print: Python's str() of booleans, None, numbers, lists, tuples, dicts.
export const LITERALS = cases(
  "{{ true }} {{ false }} {{ True }} {{ False }} {{ none }} {{ None }}",
  "{{ 42 }} {{ -7 }} {{ 1_000_000 }} {{ 0x1F }} {{ 0o17 }} {{ 0b101 }}",
  "{{ 3.0 }} {{ 3.10 }} {{ 0.5 }} {{ -0.0 }} {{ 1e3 }} {{ 2.5e-3 }} {{ 1.5E10 }}",
  "{{ 1e16 }} {{ 1e15 }} {{ 0.0001 }} {{ 0.00001 }} {{ 123456789.123456789 }} {{ 1.5e300 * 1e10 }}",
  "{{ 2 ** 64 }} {{ 2.0 ** 64 }} {{ 100000000000000000000 }}",
  "{{ [1, 'a', none, true, 1.5, 2.0] }}",
  "{{ [[1, 2], [], ['x']] }} {{ (1,) }} {{ (1, 2) }} {{ () }} {{ (1) }}",
  "{{ {'k': 'v', 'n': 1, 'l': [none]} }} {{ {} }}",
  "{% set d = {'a': {'b': {'c': 1}}} %}{{ d }} {{ {'x': {}} }} {{ d.a['b'] }} {{ {'k': data.order_id}['k'] }}",
  '{{ "it\'s" }} {{ ["it\'s", \'say "hi"\', "both \' \\""] }}',
  "{{ ['tab\\there', 'new\\nline', 'back\\\\slash', '\\xa0'] }}",
  "{{ 'a' 'b' \"c\" }} {{ 'caf\\u00e9' }} {{ '\\x41\\101' }} {{ '\\d stays' }}",
  "{{ 'multi\nline' }}",
  "{{ data.customer }}",
  "{{ data.products[0] }}",
  "{{ data.tracking }} {{ data.shipped }} {{ data.customer.vip }} {{ data.note }}|",
  "{{ data.total }} {{ data.discount }} {{ data.count }} {{ data.scores }}",
  "{{ data.prices }} {{ data.words }}",
  "{{ {'a': 1}.items() }} {{ {'a': 1}.keys() }} {{ {'a': 1}.values() }}",
  "{{ range(3) }} {{ range(1, 9, 2) }} {{ range(3) | list }}",
  "{% set x = 1, 2 %}{{ x }} {{ x | length }}",
  "{{ '%s' % none }} {{ 'v=' ~ true }} {{ 1.5 | string }} {{ [none] | join }}",
);
