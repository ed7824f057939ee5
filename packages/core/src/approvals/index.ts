export * from "./review-notice";
export * from "./held-items";
