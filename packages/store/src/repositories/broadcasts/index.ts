export * from "./broadcast-rows";
export * from "./broadcast-members";
export * from "./broadcast-chunks";
