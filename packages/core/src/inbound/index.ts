export * from "./phone-number";
export * from "./sms-keywords";
export * from "./sms-reply-effect";
