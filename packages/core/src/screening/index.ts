export * from "./screening-verdict";
export * from "./parse-answer";
export * from "./decide-screening";
