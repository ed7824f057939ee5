export * from "./scopes";
export * from "./api-key-secret";
