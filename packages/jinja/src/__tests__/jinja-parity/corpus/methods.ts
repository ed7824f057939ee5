import { cases } from "./types";

// Python's str, list and dict methods called from templates.
export const METHODS = cases(
  "{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'a b c'.split(' ', 1) }} {{ 'a b c'.rsplit(' ', 1) }} {{ 'a\\nb'.splitlines() }}",
  "{{ 'x'.join(['1', '2']) }} {{ ', '.join(data.words) }} {{ 'abc'.upper() }} {{ 'ABC'.lower() }} {{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} {{ 'aB'.swapcase() }}",
  "{{ 'Hello'.startswith('He') }} {{ 'Hello'.startswith(('x', 'H')) }} {{ 'Hello'.endswith('lo') }} {{ 'Hello'.find('l') }} {{ 'Hello'.rfind('l') }} {{ 'Hello'.find('z') }} {{ 'Hello'.index('e') }}",
  "{{ 'a-b-c'.replace('-', '+') }} {{ 'a-b-c'.replace('-', '+', 1) }} {{ 'abcabc'.count('b') }} {{ '42'.zfill(5) }} {{ '-42'.zfill(5) }}",
  "[{{ '  x '.strip() }}] [{{ '  x '.lstrip() }}] [{{ '  x '.rstrip() }}] [{{ 'xxaxx'.strip('x') }}] [{{ 'ab'.center(6, '*') }}] [{{ 'ab'.ljust(4, '.') }}] [{{ 'ab'.rjust(4) }}]",
  "{{ 'k=v=w'.partition('=') }} {{ 'k=v=w'.rpartition('=') }} {{ 'pre_name'.removeprefix('pre_') }} {{ 'file.txt'.removesuffix('.txt') }}",
  "{{ '123'.isdigit() }} {{ 'abc'.isalpha() }} {{ 'a1'.isalnum() }} {{ ' '.isspace() }} {{ 'abc'.islower() }} {{ 'ABC'.isupper() }} {{ 'Ab Cd'.istitle() }}",
  "{{ '{} of {}'.format(1, 2) }} {{ '{0}{1}{0}'.format('a', 'b') }} {{ '{name}!'.format(name=data.customer.first_name) }} {{ '{:.2f}'.format(data.total) }}",
  "{{ '{:>8}|{:<6}|{:^7}|{:*^9}'.format('r', 'l', 'c', 'x') }} {{ '{:,}'.format(1234567) }} {{ '{:08.3f}'.format(-3.14159) }} {{ '{:.1%}'.format(0.256) }}",
  "{{ '{:x} {:X} {:o} {:b} {:#x} {:+d} {:e}'.format(255, 255, 8, 5, 255, 3, 1234.5) }} {{ '{!r} {!s}'.format('q', 1) }} {{ '{0[0]} {1[k]}'.format(['a'], {'k': 'v'}) }}",
  "{{ '{} {}'.format(1.0, 2.5) }} {{ '{:.3}'.format(2.0) }} {{ '{:g}'.format(100000) }} {{ '{:g}'.format(1e6) }} {{ '{:.2e}'.format(0.000123) }} {{ '{{literal}}'.format() }}",
  "{% set l = [3, 1] %}{{ l.append(2) }} {{ l }} {{ l.pop() }} {{ l.pop(0) }} {{ l }} {{ l.index(1) }} {{ [1, 2, 1].count(1) }}",
  "{% set l = [1] %}{% set _ = l.extend([2, 3]) %}{% set _ = l.insert(0, 0) %}{% set _ = l.remove(2) %}{{ l }} {{ l.copy() }}",
  "{{ data.customer.get('first_name') }} {{ data.customer.get('nope') }} {{ data.customer.get('nope', 'dflt') }} {{ data.customer.keys() | list }}",
  "{{ data.prices.values() | sum }} {{ data.prices.items() | list }} {{ data.prices.items() | length }}",
  "{% set d = {'a': 1} %}{% set _ = d.update({'b': 2}) %}{% set _ = d.update(c=3) %}{{ d }} {{ d.pop('a') }} {{ d.setdefault('z', 0) }} {{ d }}",
  "{{ 'abc'[1:] }} {{ 'abc'[-1] }} {{ 'abcdef'[::2] }} {{ 'abc'[::-1] }} {{ 'abc'[5:] }}| {{ 'abc'[10] }}|",
  "{{ data.scores[1:3] }} {{ data.scores[-2:] }} {{ data.scores[:2] }} {{ data.scores[::3] }} {{ data.scores[-1] }} {{ data.scores.0 }} {{ data.products.1.name }}",
  "{{ (1, 2, 3)[1:] }} {{ (1, 2, 3)[0] }} {{ (1, 2, 1).count(1) }} {{ data.nested.a.b.c }} {{ data.nested['a']['b'] }}",
  "{{ 'Zoë'.upper() }} {{ 'ÄÖÜ'.lower() }} {{ 'straße'.upper() }} {{ 'Zoë'[2] }} {{ 'Zoë' | length }}",
);
