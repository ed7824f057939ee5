export * from "./event-accept";
export * from "./event-reads";
export * from "./event-writes";
export * from "./ingest-snapshot";
export * from "./event-erasure";
export * from "./service-events";
export * from "./event-retention";
