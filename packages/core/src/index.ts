export * from "./errors";
export * from "./ids";
export * from "./access";
export * from "./time";
export * from "./rules";
export * from "./render";
export * from "./policy";
export * from "./text";
