import { cases } from "./types";

// Operators with Python's types and Jinja2's precedence (`~` binds tighter than `+`, `is` tighter
// than arithmetic, `**` left to right).
export const ARITHMETIC = cases(
  "{{ 10 / 4 }} {{ 10 / 5 }} {{ 1 / 3 }} {{ 0.1 + 0.2 }} {{ 2 * 3.0 }}",
  "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7.5 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 5.5 % 2 }}",
  "{{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2 ** 0.5 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}",
  "{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7 * 3 // 2 }} {{ 10 / 2 % 3 }} {{ 2 * 3 % 4 }}",
  "{{ 10 - 2 - 3 }} {{ 10 - 2 + 3 }} {{ 100 / 10 / 5 }}",
  "{{ 1 + 2 is odd }} {{ (1 + 2) is odd }}",
  "{{ 'ab' * 3 }} {{ 3 * 'x' }} {{ [1, 2] * 2 }} {{ [1] + [2, 3] }} {{ 'a' + 'b' }}",
  "{{ 'Total: ' ~ data.total }} {{ 1 ~ 2 }} {{ 'x' ~ none ~ true ~ [1] }}",
  "{{ data.total * 2 }} {{ data.total / 2 }} {{ data.count / 2 }} {{ data.count // 2 }} {{ data.count % 4 }}",
  "{{ data.total - data.total * data.discount }}",
  "{{ (data.total * (1 - data.discount)) | round(2) }}",
  "{{ data.products[0].price * data.products[0].qty }}",
  "{{ -data.count }} {{ +data.count }} {{ -data.total }} {{ - - 3 }}",
  "{{ true + 1 }} {{ true * 3 }} {{ false - 1.5 }}",
  "{{ 1 == 1.0 }} {{ 1 == true }} {{ '1' == 1 }} {{ [1, 2] == [1, 2] }} {{ (1,) == [1] }} {{ {'a': 1} == {'a': 1} }}",
  "{{ 5 > 3 > 1 }} {{ 1 < 2 < 2 }} {{ 1 < 2 <= 2 }} {{ 'b' > 'a' }} {{ 'B' < 'a' }} {{ [1, 2] < [1, 3] }}",
  "{{ 'a' in 'abc' }} {{ 'z' not in ['a'] }} {{ 'k' in {'k': 1} }} {{ 2 in [1.0, 2.0] }} {{ not 1 in [1] }}",
  "{{ 'Mug' in data.products | map(attribute='name') }} {{ 'vip' in data.customer }}",
  "{{ not true }} {{ not 0 }} {{ not [] }} {{ not 'x' }} {{ not none }}",
  "{{ 0 or 'b' }} {{ 'a' or 'b' }} {{ '' and 'x' }} {{ 1 and 2 }} {{ none or [] or 0 }} {{ [] and 1 }}",
  "{{ 'yes' if data.shipped else 'no' }} {{ 'a' if false }}| {{ 1 if 0 else 2 if 0 else 3 }}",
);
