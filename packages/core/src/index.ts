export * from "./errors";
export * from "./ids";
export * from "./time";
export * from "./rules";
export * from "./render";
export * from "./policy";
