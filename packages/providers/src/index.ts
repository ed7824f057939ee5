export * from "./provider";
export { createProvider, createProviders, PROVIDER_DEFINITIONS } from "./create-provider";
export { FailoverProvider } from "./failover-provider";
export {
  signPayload,
  verifySignature,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
} from "./webhook-signature";
export {
  emptyTwilioReply,
  twilioSignature,
  verifyTwilioSignature,
  type TwilioParams,
} from "./twilio-webhook";
export {
  isRetryableStatus,
  parseRetryAfter,
  postWithDeadline,
  postWithSignal,
  systemErrorCode,
} from "./http";
export { apnsId } from "./apns-provider";
export { emailMessageId, threadMessageId } from "./email-headers";
export {
  postSignedJson,
  SVC_USER_AGENT,
  type SignedJsonPost,
  type SignedPostResult,
} from "./signed-json-post";
export * from "./outbound";
