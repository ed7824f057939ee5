export * from "./keyed-rows";
export * from "./categories";
export * from "./templates";
export * from "./rules";
export * from "./agents";
export * from "./composition-config";
