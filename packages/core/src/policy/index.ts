export * from "./importance";
export * from "./message-status";
export * from "./reasons";
export * from "./rolling-window";
export * from "./fatigue";
export * from "./compliance";
export * from "./texting-at-delivery";
export * from "./channel-addresses";
export type {
  ApprovalView,
  DraftPatch,
  FrequencyCap,
  PolicyAddress,
  PolicyAgent,
  PolicyCategory,
  PolicyConfig,
  PolicyContext,
  PolicyDecision,
  PolicyDraft,
  PolicyHistory,
  PolicyMessage,
  PolicyRecipient,
  PolicyRule,
  PolicyStep,
  RenderOutcome,
  RenderRequest,
  StepOutcome,
  StepTrace,
} from "./context";
export * from "./pipeline";
