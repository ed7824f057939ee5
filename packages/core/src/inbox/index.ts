export * from "./item-actions";
export * from "./stream-position";
