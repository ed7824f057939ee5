export * from "./api-key-reads";
export * from "./api-key-writes";
