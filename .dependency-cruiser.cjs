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
      // Its tests may read files and run a reference implementation (real Jinja2 for templates).
      from: { path: "^packages/core/", pathNot: ["\\.test\\.ts$", "/__tests__/"] },
      to: { path: [...IO_LIBRARIES, ...IO_CORE_MODULES, ...IO_WORKSPACES, "^apps/"] },
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
