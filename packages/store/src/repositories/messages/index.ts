export * from "./message-reads";
export * from "./message-composition";
export * from "./message-claims";
export * from "./message-delivery";
export * from "./message-sweeps";
export * from "./message-status";
export * from "./message-link-batch";
