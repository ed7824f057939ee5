import { cases } from "./types";

// Missing values with ChainableUndefined: empty output at any depth, and what filters make of it.
export const UNDEFINED = cases(
  "[{{ nope }}] [{{ data.nope }}] [{{ data.nope.deeper.still }}] [{{ data.customer.nope }}] [{{ data.products[9] }}] [{{ data.nope['k'][0] }}]",
  "[{{ 'Hi ' ~ data.nope }}] [{{ data.nope | upper }}] [{{ data.nope | lower | trim }}] [{{ data.nope | string }}] [{{ data.nope | e }}]",
  "[{{ data.nope | length }}] [{{ data.nope | list }}] [{{ data.nope | join(',') }}] [{{ data.nope | first }}] [{{ data.nope | last }}] [{{ data.nope | sort }}]",
  "[{{ data.nope | sum }}] [{{ data.nope | unique | list }}] [{{ data.nope | map('upper') | list }}] [{{ data.nope | select | list }}] [{{ data.nope | min }}]",
  "[{{ data.nope | default('fallback') }}] [{{ data.nope.deep | default('deep fallback') }}] [{{ data.nope | d }}] [{{ data.tracking | default('x') }}]",
  "[{{ data.nope | truncate(3) }}] [{{ data.nope | replace('a', 'b') }}] [{{ data.nope | center(3) }}] [{{ data.nope | capitalize }}] [{{ data.nope | wordcount }}]",
  "[{{ data.nope | batch(2) | list }}] [{{ data.nope | items | list }}] [{{ data.nope | urlencode }}] [{{ data.nope | indent }}]",
  "{% if data.nope %}t{% else %}f{% endif %} {{ not data.nope }} {{ data.nope is defined }} {{ data.nope == data.other }} {{ data.nope == none }} {{ data.nope is none }}",
  "{{ 'x' in data.nope }} {{ data.nope and 1 }}| {{ data.nope or 'or-fallback' }} {{ [data.nope, 1] }}",
  "{% for x in data.nope %}x{% else %}no items{% endfor %} {{ data.nope | list | length }}",
  "{{ 'yes' if data.nope else 'no' }} {{ data.customer.tier | default('standard', true) }} {{ data.nope ~ '' }}|",
  "{% set x = data.nope %}[{{ x }}] {{ x is defined }} {% if x is undefined %}still undefined{% endif %}",
  "{% macro m(a, b) %}[{{ a }}|{{ b }}|{{ b is defined }}]{% endmacro %}{{ m(1) }}",
  "{{ null }}|{{ null is defined }}|{{ Null is defined }}",
);
