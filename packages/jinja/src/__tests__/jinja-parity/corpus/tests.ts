import { cases } from "./types";

// Jinja2's tests (`x is name`), with and without parentheses around the argument.
export const TESTS = cases(
  "{% for i in range(1, 10) %}{% if i is divisibleby 3 %}{{ i }}{% endif %}{% endfor %} {{ 10 is divisibleby(5) }} {{ 7.5 is divisibleby 2.5 }}",
  "{{ 3 is odd }} {{ 4 is even }} {{ -3 is odd }} {{ 0 is even }} {{ data.count is odd }}",
  "{{ data.customer is defined }} {{ data.nope is defined }} {{ data.nope is undefined }} {{ data.tracking is defined }}",
  "{{ data.tracking is none }} {{ data.note is none }} {{ none is none }} {{ data.nope is none }} {{ data.tracking is not none }}",
  "{{ true is boolean }} {{ 1 is boolean }} {{ true is true }} {{ 1 is true }} {{ false is false }} {{ 0 is false }}",
  "{{ 1 is integer }} {{ 1.0 is integer }} {{ true is integer }} {{ 1.0 is float }} {{ 1 is float }} {{ data.total is float }}",
  "{{ 1 is number }} {{ 1.5 is number }} {{ true is number }} {{ '1' is number }} {{ none is number }}",
  "{{ 'a' is string }} {{ 1 is string }} {{ data.message is string }} {{ data.message | safe is string }}",
  "{{ {} is mapping }} {{ data.customer is mapping }} {{ [] is mapping }} {{ 'x' is mapping }}",
  "{{ [] is sequence }} {{ 'x' is sequence }} {{ {} is sequence }} {{ 1 is sequence }} {{ none is sequence }}",
  "{{ [] is iterable }} {{ 'x' is iterable }} {{ {} is iterable }} {{ 1 is iterable }} {{ data.nope is iterable }}",
  "{{ 'abc' is lower }} {{ 'aBc' is lower }} {{ 'ABC' is upper }} {{ '123' is upper }} {{ 'A1' is upper }}",
  "{{ range is callable }} {{ 'x' is callable }} {{ 'x'.upper is callable }} {{ joiner() is callable }}",
  "{{ 'upper' is filter }} {{ 'nope' is filter }} {{ 'odd' is test }} {{ 'nope' is test }}",
  "{{ 2 is in [1, 2] }} {{ 'b' is in 'abc' }} {{ 'k' is in {'k': 1} }} {{ 3 is in [1] }}",
  "{{ 3 is gt 2 }} {{ 3 is greaterthan(3) }} {{ 3 is ge 3 }} {{ 2 is lt 3 }} {{ 2 is lessthan 2 }} {{ 2 is le 2 }} {{ 2 is ne 3 }}",
  "{{ 1 is eq 1.0 }} {{ 'a' is equalto 'a' }} {{ 1 is == 1 }} {{ 1 is != 2 }} {{ 1 is > 0 }}",
  "{{ none is sameas none }} {{ true is sameas true }} {{ 1 is sameas true }}",
  "{{ data.message is escaped }} {{ data.message | e is escaped }} {{ data.message | safe is escaped }}",
  "{{ data.scores | select('divisibleby', 3) | list }} {{ data.scores | reject('lessthan', 4) | list }} {{ data.words | select('lower') | list }}",
  "{{ data.products | selectattr('tags', 'sequence') | list | length }} {{ data.products | selectattr('qty', 'in', [1, 3]) | map(attribute='sku') | list }}",
  "{% if data.count is number and data.count is not divisibleby 2 %}odd number{% endif %}",
);
