// nunjucks 3.2 ships without types; only what this package uses is declared. Its runtime,
// compiler, parser, lexer, nodes and transformer are internals that nunjucks-patches.ts extends.
declare module "nunjucks" {
  namespace nunjucks {
    interface EnvironmentOptions {
      autoescape?: boolean;
      throwOnUndefined?: boolean;
      trimBlocks?: boolean;
      lstripBlocks?: boolean;
    }
    class Environment {
      constructor(loader?: null, opts?: EnvironmentOptions);
      opts: EnvironmentOptions;
      filters: Record<string, (...args: any[]) => unknown>;
      tests: Record<string, (...args: any[]) => unknown>;
      addGlobal(name: string, value: unknown): this;
      addFilter(name: string, fn: (...args: any[]) => unknown): this;
      getFilter(name: string): (...args: any[]) => unknown;
      addTest(name: string, fn: (...args: any[]) => unknown): this;
      addExtension(name: string, extension: object): this;
    }
    class Template {
      constructor(src: string, env?: Environment, path?: string, eagerCompile?: boolean);
      compile(): void;
      render(context?: object): string;
    }
    interface AstNode {
      lineno: number;
      colno: number;
      findAll(type: unknown): AstNode[];
      [field: string]: any;
    }
    const runtime: Record<string, any>;
    /** A class of nunjucks' own (lexer, parser, compiler): extended, never changed. */
    interface InternalClass {
      new (...args: any[]): any;
      prototype: Record<string, any>;
    }
    const compiler: { Compiler: InternalClass };
    const parser: {
      parse(src: string, extensions?: unknown[], opts?: EnvironmentOptions): AstNode;
      Parser: InternalClass;
    };
    const lexer: Record<string, any>;
    const nodes: Record<string, unknown>;
  }
  export = nunjucks;
}

declare module "nunjucks/src/transformer" {
  /** nunjucks' pass between parsing and compiling (async filters, `super()` in blocks). */
  export function transform(ast: unknown, asyncFilters: unknown, name: string | undefined): unknown;
}
