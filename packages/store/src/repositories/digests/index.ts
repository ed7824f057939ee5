export * from "./digest-reads";
export * from "./digest-closing";
export * from "./digest-joining";
export * from "./digest-erasure";
export * from "./digest-follow-ups";
export * from "./digest-retention";
