// Import rules checked by `npm run lint:imports` (dependency-cruiser); the layers they keep are
// described in docs/architecture.md. Any violation fails the lint.

// What makes a module I/O: the database, queue, HTTP server, logging and mail libraries, and the
// Node core modules that touch files, sockets or processes. `node:crypto` is pure and allowed.
const IO_LIBRARIES = [
  "(^|/)node_modules/(prisma|@prisma|pg|pg-pool|bullmq|ioredis|redis|express|winston|nodemailer|web-push)/",
];
const IO_CORE_MODULES = [
  "^(node:)?(fs|net|http|https|http2|child_process|dgram|dns|tls|cluster|worker_threads)(/|$)",
];
// The workspace packages that do I/O, reached through their @svc/* names (resolved to source).
const IO_WORKSPACES = ["^packages/(store|queue|providers|engine|log|config|testkit)/"];

// The engine's layers (docs/architecture.md "Layers of the engine"), bottom up. A module may import
// its own layer and the ones below; tests (and their fixtures) may reach anywhere.
const ENGINE = "^packages/engine/src/";
const ENGINE_TESTS = ["\\.test\\.ts$", "/__tests__/"];
const ENGINE_KERNEL = `${ENGINE}(deps\\.ts$|shared/|outbox/|metrics/|rendering/)`;
const ENGINE_BLOCKS = `${ENGINE}(compose|api-keys|agents|recipients|categories|consent|rules|links|retention)/`;
const ENGINE_ENTRY = `${ENGINE}index\\.ts$`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "No import cycle among our sources, within a package or across packages: a cycle means " +
        "two modules that cannot be read, tested or moved apart. Put the shared part (often the " +
        "types) in a module of its own.",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-stays-pure",
      severity: "error",
      comment:
        "packages/core holds pure decisions (it takes `now`, does no I/O): no database, queue, " +
        "HTTP, logging or mail library, no file/socket/process module of Node, and no workspace " +
        "package that does I/O. Move the I/O to packages/store or packages/engine.",
      // Its tests may read files.
      from: { path: "^packages/core/", pathNot: ["\\.test\\.ts$", "/__tests__/"] },
      to: { path: [...IO_LIBRARIES, ...IO_CORE_MODULES, ...IO_WORKSPACES, "^apps/"] },
    },
    {
      name: "jinja-stays-pure",
      severity: "error",
      comment:
        "packages/jinja is the template language (Jinja2 on nunjucks), pure as packages/core is: " +
        "no database, queue, HTTP, logging or mail library, no file/socket/process module of " +
        "Node, and no other workspace package (core builds on it, not the other way round).",
      // Its tests may read files and run a reference implementation (real Jinja2).
      from: { path: "^packages/jinja/", pathNot: ["\\.test\\.ts$", "/__tests__/"] },
      to: { path: [...IO_LIBRARIES, ...IO_CORE_MODULES, "^packages/(?!jinja/)", "^apps/"] },
    },
    {
      name: "engine-kernel-is-the-floor",
      severity: "error",
      comment:
        "The engine's kernel (deps.ts, shared/, outbox/, metrics/, rendering/) is what every use " +
        "case shares: it imports nothing of the engine above it. Move the piece that is shared " +
        "down into the kernel, or return the work as data for the caller to do.",
      from: { path: ENGINE_KERNEL, pathNot: ENGINE_TESTS },
      to: { path: ENGINE, pathNot: ENGINE_KERNEL },
    },
    {
      name: "engine-blocks-below-use-cases",
      severity: "error",
      comment:
        "The engine's building blocks (compose/ and the resources: api-keys, agents, recipients, " +
        "categories, consent, rules, links, retention) import only the kernel and each other, " +
        "never a use case: a use case composes them, not the other way round.",
      from: { path: ENGINE_BLOCKS, pathNot: ENGINE_TESTS },
      to: { path: ENGINE, pathNot: [ENGINE_KERNEL, ENGINE_BLOCKS] },
    },
    {
      name: "engine-entry-is-the-door",
      severity: "error",
      comment:
        "packages/engine/src/index.ts is the engine's public face for the apps; nothing inside " +
        "the engine imports it (that would tie every module to every other).",
      from: { path: ENGINE, pathNot: [ENGINE_ENTRY, ...ENGINE_TESTS] },
      to: { path: ENGINE_ENTRY },
    },
    {
      name: "packages-not-to-apps",
      severity: "error",
      comment: "Packages are the building blocks of the apps; a package never imports an app.",
      from: { path: "^packages/" },
      to: { path: "^apps/" },
    },
    {
      name: "svc-names-resolve",
      severity: "error",
      comment:
        "Every @svc/* import must resolve to a workspace's source (tsconfig.json paths), or the " +
        "rules above cannot see across packages.",
      from: {},
      to: { path: "^@svc/", couldNotResolve: true },
    },
  ],
  options: {
    // Our sources only; libraries are leaves, and the generated Prisma client is not ours.
    doNotFollow: { path: "node_modules" },
    // (Not a bare `dist/`: many libraries resolve into their own dist/, and must stay visible.)
    exclude: { path: ["^(apps|packages)/[^/]+/dist/", "^packages/store/src/generated/"] },
    // Type-only imports count too: a cycle through types still ties two modules together.
    tsPreCompilationDeps: true,
    // @svc/* resolves to packages/*/src and apps/*/src as in the type checker and jest.
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".cjs", ".mjs", ".json", ".d.ts"] },
    skipAnalysisNotInRules: true,
    progress: { type: "none" },
  },
};
