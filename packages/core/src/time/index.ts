export * from "./period";
export * from "./time-of-day";
export * from "./zone";
export * from "./zoned";
export * from "./quiet-hours";
export * from "./daily";
export * from "./texting-hours";
