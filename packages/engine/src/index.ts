// The engine's public surface: exactly what apps/api, apps/worker, apps/svcctl, bench/ and test/
// import, by name. Anything else stays inside the package; export a name here when an app needs it.

// API keys: authentication (with its cache) and the key admin of the API and svcctl.
export { createApiKeyCache, type ApiKeyCache } from "./api-keys/api-key-cache";
export { authenticate } from "./api-keys/authenticate";
export { createApiKey } from "./api-keys/create-api-key";
export { getApiKey, listApiKeys } from "./api-keys/list-api-keys";
export { revokeApiKey } from "./api-keys/revoke-api-key";
export type { ApiKeyView } from "./api-keys/serialize-api-key";

// Admin resources: agents, categories, templates (with preview) and rules.
export { agentsResource } from "./agents/agent-crud";
export { categoriesResource } from "./categories/categories-resource";
export { templatesResource } from "./templates/templates-resource";
export { previewTemplate, type TemplatePreviewRequest } from "./templates/preview-template";
// Template rendering on worker threads with a hard time limit (docs/templates.md "Limits").
export { closeRenderPools, renderPool, RenderPool, RENDER_HARD_LIMIT_MS } from "./rendering/render-pool";
export { rulesResource } from "./rules/rules-resource";
export { checkTemplateString } from "./rules/check-template-string";

// Recipients: profiles, addresses and preferences as the API writes them.
export {
  addAddress,
  getRecipient,
  listRecipients,
  putRecipient,
  removeAddress,
} from "./recipients/recipients";
export { writeProfile, type RecipientProfileInput } from "./recipients/recipient-profile";
export { changePreferences, putPreferences, type PreferencesInput } from "./recipients/preferences";

// Recipient rights: consent ledger, preference history, erasure.
export { recordConsent } from "./consent/record-consent";
export { listPreferenceHistory } from "./consent/preference-history";
export { eraseRecipient } from "./erasure/erase-recipient";

// Inbound text replies: STOP/START reported by the backend or by the provider's signed webhook.
export {
  handleInboundSms,
  type InboundSmsInput,
  type InboundSmsResult,
  type InboundSmsSource,
} from "./inbound/handle-sms-reply";
export {
  providerWebhookAuth,
  twilioWebhookAnswer,
  verifyTwilioWebhook,
  type ProviderWebhookAuth,
} from "./inbound/provider-webhook";

// Hosted preference pages: the person's own preferences, one-click unsubscribe, their tokens.
export type { OwnPreferencesView } from "./preferences-self-service/own-preferences";
export {
  changeOwnPreferences,
  getOwnPreferences,
  oneClickUnsubscribe,
} from "./preferences-self-service/change-own-preferences";
export { issuePreferenceToken } from "./preferences-self-service/preference-token";
export { categoryOnPage, unsubscribeConfirmation } from "./preferences-self-service/unsubscribe-page";

// Events: the accept path (batched commits), reads, inline ingest and rule evaluation.
export type { EventInput } from "./events/event-input";
export { acceptEvent, type AcceptEventDeps } from "./events/accept-event";
export { acceptEventBatch, type BatchItemResult } from "./events/accept-event-batch";
export { createEventBatcher } from "./events/event-batcher";
export { ingestJobFor } from "./events/commit-events";
export { getEvent, listEvents } from "./events/read-events";
export { ingestEvent } from "./ingest/ingest-event";
export { ingestEvents } from "./ingest/ingest-batch";
export { evaluateRules, type EvaluateInput } from "./evaluate/evaluate-rules";

// Coding-agent hooks: a Claude Code hook posted over HTTP, reported as an event.
export { reportCodingAgentHook } from "./hooks/report-hook";

// Messages: send, list, read, cancel.
export { sendMessage, type SendMessageInput } from "./messages/send-message";
export { listMessages, type ListMessagesQuery } from "./messages/list-messages";
export { getMessage } from "./messages/get-message";
export { cancelMessage } from "./messages/cancel-message";

// Engagement: tracked links and the events they record.
export { batchDeliveryLinks } from "./delivery/delivery-links-batch";
export {
  recordMessageEngagement,
  recordTrackedEngagement,
  type EngagementInput,
} from "./engagement/record-engagement";

// Digests: reads, send-now, and closing one.
export { getDigest, listDigests, type ListDigestsQuery } from "./digests/read-digests";
export { sendDigestNow } from "./digests/send-digest-now";
export { closeDigest } from "./digests/close-digest";

// Worker: the queue jobs and the sweeps that recover work after a crash.
export { ingestJobs, requeuePendingEventsSweep } from "./ingest/ingest-job";
export { applyPolicyJob } from "./ingest/apply-policy";
export { composeMessage } from "./compose/compose-message";
export { deliverMessageJob, deliverMessagesJob } from "./delivery/deliver-message-job";
export { deliveryJobsFor } from "./delivery/delivery-jobs";
export { deliverySweeps, requeueDueSweep } from "./delivery/delivery-sweeps";
export {
  applyRetention,
  retentionEnabled,
  retentionSweeps,
  RETENTION_EVERY_MS,
  type RetentionResult,
} from "./retention/apply-retention";
export { inlineDelivery } from "./delivery/inline-delivery";
export { closeDigestJob, closeDueDigestsSweep } from "./digests/close-digest-job";

// Screening: the delivery gate, the screening queue's jobs and their recovery sweep.
export { screeningGate } from "./screening/screening-handoff";
export { requeueScreeningSweep, screeningJobs } from "./screening/screening-jobs";

// Approvals: held messages and approval requests decided by key or review link, their sweep.
export {
  createApprovalRequest,
  getApprovalRequest,
  listApprovalRequestsFor,
  type ApprovalDeps,
  type ApprovalInput,
  type ApprovalView,
  type ListApprovalsQuery,
} from "./approvals/approval-requests";
export { decideApprovalByKey, decideMessageByKey } from "./approvals/decide-by-key";
export type { Decision } from "./approvals/decide-held-message";
export {
  decideByReviewLink,
  reviewPageFor,
  type LinkDecisionResult,
  type ReviewItem,
  type ReviewOutcome,
  type ReviewPage,
  type ReviewToolCall,
} from "./approvals/review-by-link";
export { expireHeldItemsSweep } from "./approvals/expire-held-items";
export {
  createApprovalWaiters,
  type ApprovalWaiters,
  type ApprovalWaitersOptions,
} from "./approvals/approval-waiters";
export {
  getApprovalRequestWaiting,
  MAX_WAIT_SECONDS,
  type WaitingReadDeps,
} from "./approvals/wait-for-approval";
export { withdrawApprovalRequestBySender } from "./approvals/withdraw-request";

// Coding agents asking a person before a tool call (docs/hooks.md "Asking a person").
export {
  askPermission,
  type AskPermissionOptions,
  type PermissionAnswer,
  type PermissionPorts,
} from "./permissions/ask-permission";
export {
  answerPermissionHook,
  type PermissionHookDeps,
  type PermissionHookOptions,
} from "./permissions/permission-hook";
export { endSessionGrantsOf, listSessionGrants, type SessionGrantsView } from "./permissions/session-grants";
export { maskSecrets, maskSecretsIn } from "./screening/secret-check";
export { reviewToken } from "./shared/review-notices";

// Decision callbacks: recorded by a decision, sent by the worker, listed and retried by operators.
export { callbackJob, recordDecisionCallback, type DecisionCallbackBody } from "./shared/record-callback";
export { callbackTryJobId } from "./callbacks/callback-retry";
export { sendCallbackJob, type SendCallbackDeps } from "./callbacks/send-callback";
export { requeueCallbacksSweep } from "./callbacks/callback-sweeps";
export {
  listCallbacks,
  retryCallback,
  type CallbackView,
  type ListCallbacksQuery,
  type RetryCallbackDeps,
} from "./callbacks/operator-callbacks";

// Broadcasts: the resource, its lifecycle actions, the chunk jobs and their sweep (docs/broadcasts.md).
export {
  createBroadcast,
  getBroadcast,
  listBroadcasts,
  updateBroadcast,
  type BroadcastResourceDeps,
  type ListBroadcastsQuery,
} from "./broadcasts/broadcasts-resource";
export { actOnBroadcast, type BroadcastActionDeps } from "./broadcasts/broadcast-actions";
export type { BroadcastInput, BroadcastPatchInput } from "./broadcasts/broadcast-input";
export type { BroadcastView } from "./broadcasts/serialize-broadcast";
export { broadcastJobs, advanceBroadcastsSweep, type BroadcastJobDeps } from "./broadcasts/broadcast-jobs";
export { CHUNK_SIZE as BROADCAST_CHUNK_SIZE } from "./broadcasts/plan-broadcast";
export { broadcastDedupKey } from "./broadcasts/send-broadcast-chunk";

// The outbox: changes reported to the outside, written with the change and relayed by workers.
export { recordOutbox, kickOutbox, OUTBOX_KICK, type NewOutboxEntry } from "./outbox/outbox";
export {
  relayOutboxOnce,
  type OutboxConsumer,
  type OutboxEntryRow,
  type OutboxNotice,
} from "./outbox/relay-outbox";
export { startOutboxRelay, type OutboxRelay } from "./outbox/outbox-relay";
// Webhook events (docs/webhooks.md): written with the change they report.
export {
  emitWebhookEvents,
  messageEmission,
  messageEventTypeOf,
  webhookEntries,
  webhookPayload,
  WEBHOOK_EVENT_TOPIC,
  type WebhookEmission,
  type WebhookSubjectKind,
} from "./outbox/emit";

// The in-app inbox (docs/inbox.md): the channel's store, tokens for people, the feed, the streams.
export { inboxStore, type InboxDeliveryDeps } from "./inbox/inbox-delivery";
export {
  issueInboxToken,
  authenticateInboxToken,
  type InboxPerson,
  type InboxTokenDeps,
} from "./inbox/inbox-tokens";
export {
  listInbox,
  inboxCounts,
  actOnInboxItem,
  markAllInbox,
  recordInboxReceived,
  type InboxFeedDeps,
  type InboxCounts,
} from "./inbox/inbox-feed";
export type { InboxItemView } from "./inbox/inbox-item-view";
export {
  createInboxStreams,
  type InboxStreams,
  type InboxStreamSink,
  type InboxStreamsDeps,
} from "./inbox/inbox-streams";
export { INBOX_TOPICS, inboxNoticeChannel } from "./shared/inbox-changes";

// Status webhooks (docs/webhooks.md): endpoints, the outbox fan-out, the sender, the deliveries log.
export {
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpointById,
  deleteWebhookEndpointById,
  rotateWebhookEndpointSecret,
  signingSecrets,
  WEBHOOK_SECRET_OVERLAP_MS,
  type WebhookEndpointDeps,
  type WebhookEndpointInput,
  type WebhookEndpointView,
} from "./webhooks/webhook-endpoints";
export {
  webhookFanOut,
  webhookEventId,
  type WebhookBody,
  type FanOutDeps,
} from "./webhooks/fan-out-webhooks";
export {
  sendWebhook,
  sendWebhookJob,
  sendWebhooks,
  sendWebhooksJob,
  webhookBodyBytes,
  EndpointSlots,
  WEBHOOK_PER_ENDPOINT_IN_FLIGHT,
  type SendWebhookDeps,
  type SendWebhookOutcome,
} from "./webhooks/send-webhook";
export {
  listWebhookDeliveries,
  retryWebhookDelivery,
  testWebhookEndpoint,
  type ListWebhookDeliveriesQuery,
  type WebhookDeliveriesDeps,
  type WebhookDeliveryView,
} from "./webhooks/webhook-deliveries";
export { requeueWebhooksSweep } from "./webhooks/webhook-sweeps";
export {
  nextWebhookTry,
  nominalWebhookSchedule,
  webhookEndpointBlock,
  webhookTryJobId,
} from "./webhooks/webhook-retry";
export { webhookUrlProblem } from "./webhooks/webhook-url";
