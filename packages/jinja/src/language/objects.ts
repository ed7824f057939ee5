import { splitArgs } from "./call-args";
import { eq } from "./operators";
import { pyRepr } from "./print";
import { isDict, PyTypeError, pyTuple } from "./values";

// The objects templates get from Jinja2's globals and loops: `loop`, namespace(), cycler() and
// joiner(). Templates reach only the members listed in each class's `members`.

export abstract class JinjaObject {
  protected abstract readonly members: ReadonlySet<string>;
  /** `obj.name` in a template: a listed member (methods bound), else undefined. */
  member(name: unknown): unknown {
    if (typeof name !== "string" || !this.members.has(name)) return undefined;
    const value = (this as any)[name];
    return typeof value === "function" ? value.bind(this) : value;
  }
  abstract pyRepr(): string;
}

const LOOP_MEMBERS = new Set([
  "index",
  "index0",
  "revindex",
  "revindex0",
  "first",
  "last",
  "length",
  "depth",
  "depth0",
  "previtem",
  "nextitem",
  "cycle",
  "changed",
]);

/** `loop` inside a for loop; the compiled loop sets `index0` on each pass. */
export class Loop extends JinjaObject {
  protected readonly members = LOOP_MEMBERS;
  index0 = 0;
  private lastChanged: unknown = undefined;
  private changedCalled = false;
  /**
   * `recurse` renders the loop body again for other items, one level deeper (`loop(children)`
   * in a `recursive` loop); null for other loops.
   */
  constructor(
    private readonly items: readonly unknown[],
    readonly depth = 1,
    readonly recurse: ((value: unknown) => unknown) | null = null,
  ) {
    super();
  }
  get depth0(): number {
    return this.depth - 1;
  }
  get length(): number {
    return this.items.length;
  }
  get index(): number {
    return this.index0 + 1;
  }
  get revindex(): number {
    return this.items.length - this.index0;
  }
  get revindex0(): number {
    return this.items.length - this.index0 - 1;
  }
  get first(): boolean {
    return this.index0 === 0;
  }
  get last(): boolean {
    return this.index0 === this.items.length - 1;
  }
  get previtem(): unknown {
    return this.index0 > 0 ? this.items[this.index0 - 1] : undefined;
  }
  get nextitem(): unknown {
    return this.index0 + 1 < this.items.length ? this.items[this.index0 + 1] : undefined;
  }
  cycle(...args: unknown[]): unknown {
    const [values] = splitArgs(args);
    if (values.length === 0) throw new PyTypeError("no items for cycling given");
    return values[this.index0 % values.length];
  }
  changed(...args: unknown[]): boolean {
    const values = pyTuple(splitArgs(args)[0]);
    if (this.changedCalled && eq(values, this.lastChanged)) return false;
    this.changedCalled = true;
    this.lastChanged = values;
    return true;
  }
  pyRepr(): string {
    return `<LoopContext ${this.index}/${this.length}>`;
  }
}

/** namespace(a=1): attributes a loop can change with `{% set ns.a = ... %}`. */
export class Namespace extends JinjaObject {
  protected readonly members = new Set<string>();
  readonly attributes: Record<string, unknown> = {};
  constructor(...args: unknown[]) {
    super();
    const [positional, keywords] = splitArgs(args);
    if (positional.length > 1) throw new PyTypeError("namespace expected at most 1 argument");
    const initial = positional[0];
    if (isDict(initial)) Object.assign(this.attributes, initial);
    else if (Array.isArray(initial))
      for (const [key, value] of initial as unknown[][]) this.attributes[String(key)] = value;
    Object.assign(this.attributes, keywords);
  }
  override member(name: unknown): unknown {
    return typeof name === "string" && Object.hasOwn(this.attributes, name)
      ? this.attributes[name]
      : undefined;
  }
  pyRepr(): string {
    return `<Namespace ${pyRepr(this.attributes)}>`;
  }
}

/** cycler(a, b, ...): `.next()`, `.current`, `.reset()`. */
export class Cycler extends JinjaObject {
  protected readonly members = new Set(["next", "current", "reset", "items"]);
  private position = 0;
  readonly items: unknown[];
  constructor(...args: unknown[]) {
    super();
    this.items = splitArgs(args)[0];
    if (this.items.length === 0) throw new Error("at least one item has to be provided");
  }
  get current(): unknown {
    return this.items[this.position];
  }
  next(): unknown {
    const value = this.current;
    this.position = (this.position + 1) % this.items.length;
    return value;
  }
  reset(): null {
    this.position = 0;
    return null;
  }
  pyRepr(): string {
    return "<jinja2.utils.Cycler object>";
  }
}

/** joiner(sep): a function giving "" the first time and `sep` after. */
export function joiner(sep: unknown = ", "): () => unknown {
  let used = false;
  return () => {
    if (used) return sep;
    used = true;
    return "";
  };
}
