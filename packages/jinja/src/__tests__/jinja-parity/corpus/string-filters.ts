import { cases } from "./types";

// Jinja2's text filters.
export const STRING_FILTERS = cases(
  "{{ data.customer.first_name | upper }} {{ data.customer.last_name | lower }} {{ 'hello WORLD' | capitalize }}",
  "{{ 'hello world' | title }} {{ \"they're bill's friends\" | title }} {{ 'a-b c(d [e' | title }}",
  "[{{ 'x' | center(9) }}] [{{ 'ab' | center(7) }}] [{{ data.order_id | center }}]",
  "{{ '  x  ' | trim }}|{{ 'xxhixx' | trim('x') }}|{{ '\\t y \\n' | trim }}|",
  "{{ data.long_text | truncate(20) }}|{{ data.long_text | truncate(20, true) }}|{{ data.long_text | truncate(20, end='…') }}",
  "{{ 'foo bar baz qux' | truncate(9) }}|{{ 'foo bar baz qux' | truncate(11) }}|{{ 'foo bar baz qux' | truncate(11, false, '...', 0) }}",
  "{{ 'abcdefgh' | truncate(5, leeway=0) }}|{{ 'abcdefgh' | truncate(5) }}|{{ 'foobarbazqux' | truncate(9, leeway=0) }}",
  "{{ 'Hello World' | replace('Hello', 'Goodbye') }} {{ 'aaaaargh' | replace('a', \"d'oh, \", 2) }} {{ 'abc' | replace('', '-') }}",
  "{{ data.lines | indent }}",
  "{{ data.lines | indent(2, true) }}",
  "{{ data.lines | indent(width='> ', first=true, blank=true) }}",
  "{{ data.long_text | wordwrap(20) }}",
  "{{ 'a-very-long-hyphenated-word and more' | wordwrap(10) }}",
  "{{ 'supercalifragilistic word' | wordwrap(8, break_long_words=false) }}|{{ 'ab cd' | wordwrap(3, wrapstring='<br>') }}",
  "{{ data.long_text | wordcount }} {{ 'one, two... three!' | wordcount }} {{ '' | wordcount }}",
  "{{ 'Zoë' | length }} {{ data.long_text | count }} {{ data.products | length }} {{ data.customer | length }}",
  "{{ '%s has %d item(s)' | format(data.customer.first_name, data.count) }}",
  "{{ '%.2f|%5.1f|%-6s|%06.2f|%+d|% d' | format(3.14159, 2.25, 'ab', 3.14159, 5, 7) }}",
  "{{ '%(name)s is %(age)d' | format(name='Bo', age=31) }} {{ '%x %o %X %e %g %G' | format(255, 8, 255, 12345.678, 0.00001234, 1e20) }}",
  "{{ '%s' | format([1, 2]) }} {{ '%r' | format('q') }} {{ '%c%c' | format(72, 'i') }} {{ '100%%' | format() }}",
  "{{ data.total | string }} {{ data.tracking | string }} {{ data.products | map(attribute='qty') | list | string }}",
  "{{ 'x' | string | length }} {{ 12 | string ~ '!' }}",
);
