export * from "./tool-call";
export * from "./bash-command";
export * from "./permission-rules";
export * from "./session-grant";
export * from "./describe-tool-call";
export * from "./hook-output";
export * from "./fit-tool-call";
