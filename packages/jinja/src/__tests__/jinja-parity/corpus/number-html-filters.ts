import { cases } from "./types";

// Number filters, `default`, and the HTML and URL filters (with and without autoescape).
export const NUMBER_AND_HTML_FILTERS = cases(
  "{{ 42.55 | round }} {{ 42.55 | round(1, 'floor') }} {{ 42.55 | round(1, 'ceil') }} {{ 2.675 | round(2) }} {{ 2.5 | round }} {{ 3.5 | round }}",
  "{{ 5 | round }} {{ 1234 | round(-2) }} {{ 1250 | round(-2) }} {{ 1250.0 | round(-2) }} {{ 7 | round(1, 'floor') }}",
  "{{ data.total | round | int }} {{ data.total | int }} {{ -3.7 | int }} {{ '42' | int + 1 }} {{ ' 12 ' | int }} {{ '4.9' | int }}",
  "{{ 'abc' | int }} {{ 'abc' | int(7) }} {{ '0x1A' | int(0, 16) }} {{ '1_000' | int }} {{ '0b11' | int(base=2) }} {{ none | int }}",
  "{{ 12 | float }} {{ '3.5' | float * 2 }} {{ 'abc' | float }} {{ 'abc' | float(1.5) }} {{ '1e3' | float }} {{ true | float }}",
  "{{ -5 | abs }} {{ -2.5 | abs }} {{ data.count | abs }} {{ (0 - data.total) | abs }}",
  "{{ 300 | filesizeformat }} {{ 1 | filesizeformat }} {{ 1234567 | filesizeformat }} {{ 1024 | filesizeformat(true) }} {{ 3e12 | filesizeformat }}",
  "{{ data.missing | default('none given') }} {{ data.note | default('empty') }} {{ data.note | default('empty', true) }}",
  "{{ data.tracking | default('n/a') }} {{ data.tracking | default('n/a', boolean=true) }} {{ data.missing | d('short') }}",
  "{{ data.message | e }}|{{ data.message | escape }}|{{ data.message | forceescape }}|{{ none | e }}",
  "{{ data.message | striptags }}|{{ '<p>a &amp; b</p> <!-- c -->  &lt;d&gt; &copy; &#169; &#x41;' | striptags }}",
  "{{ 'visit www.example.com or https://shop.example/x?y=1, mail zoe@example.com.' | urlize }}",
  "{{ 'see (http://example.com/page) now' | urlize(15, true) }}|{{ 'go to example.org' | urlize(target='_blank') }}",
  "{{ 'a b/c?d=é&x' | urlencode }} {{ {'q': 'tea & mug', 'n': 2} | urlencode }} {{ [('a', 1), ('b', 'x y')] | urlencode }}",
  "{{ {'class': 'btn', 'id': none, 'data-x': '<\"q\">'} | xmlattr }}|{{ {'a': 1} | xmlattr(false) }}",
  "{{ data.customer | tojson }}",
  "{{ {'b': [1, 2.0, none, true], 'a': \"<it's & done>\", 'c': 'ü'} | tojson }}",
  "{{ data.prices | tojson(indent=2) }}",
  "{{ data.prices | pprint }}|{{ 'x' | pprint }}|{{ [1, (2,), {'b': 1, 'a': [none, true, 1.5]}] | pprint }}",
  "{{ data.products | pprint }}",
  "{{ {'text': data.long_text ~ ' ' ~ data.long_text, 'nested': {'products': data.products}} | pprint }}",
  {
    source:
      "{{ data.message }}|{{ data.message | safe }}|{{ data.message | e }}|{{ data.message | forceescape }}",
    html: true,
  },
  {
    source:
      "{{ '<i>' | safe ~ data.message }}|{{ data.message ~ 'x' }}|{{ ['<a>' | safe, '<b>'] | join('&') }}|{{ [data.message] | join }}",
    html: true,
  },
  {
    source:
      "{{ data.message | replace('<', '[') }}|{{ data.message | safe | replace('<b>', '<i>') }}|{{ data.message | tojson }}",
    html: true,
  },
  {
    source: "{{ data.message | striptags }}|{{ {'title': data.message} | xmlattr }}|{{ data.url | urlize }}",
    html: true,
  },
  {
    source:
      "{{ '%s!' | format(data.message) }}|{{ '%s!' | safe | format(data.message) }}|{{ data.message | truncate(12) }}|{{ data.message | upper }}",
    html: true,
  },
  {
    source:
      "{{ '<b>x</b>' | safe | upper }}|{{ '<b>x</b>' | safe | title }}|{{ '<b>a b c d</b>' | safe | truncate(9) }}|{{ '<b>' | safe | center(7) }}",
    html: true,
  },
  {
    source:
      "{% macro m(x) %}<b>{{ x }}</b>{% endmacro %}{{ m('<i>') }}|{{ m('<i>') | upper }}|{% set b %}<p>{{ data.message }}</p>{% endset %}{{ b }}",
    html: true,
  },
);
