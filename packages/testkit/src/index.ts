// Test helpers only: production code must never import @svc/testkit.
export { createTestDatabase } from "./test-database";
export type { TestDatabase, CreateTestDatabaseOptions } from "./test-database";
export { testRedisPrefix, deleteKeysStartingWith } from "./test-redis";
export type { TestRedisPrefix } from "./test-redis";
export { waitFor } from "./wait-for";
export type { WaitForOptions } from "./wait-for";
export { TEST_SERVER_URL, TEST_REDIS_URL, MIGRATIONS_DIR } from "./services";
export { CallbackReceiver, receiverAccepts } from "./callback-receiver";
export type { ReceivedPost } from "./callback-receiver";
export { HOOK_PAYLOADS } from "./fixtures/coding-agent-hooks";
export { logprobCompletion, openAiReply, questionOf, startFakeModelServer } from "./fake-screening-model";
export type {
  FakeAnswer,
  FakeModelCall,
  FakeModelReply,
  FakeModelScript,
  FakeModelServer,
} from "./fake-screening-model";
