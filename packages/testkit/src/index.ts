// Test helpers only: production code must never import @svc/testkit.
export { createTestDatabase, reserveTestDatabase } from "./test-database";
export type { TestDatabase, CreateTestDatabaseOptions } from "./test-database";
export { testRedisPrefix, deleteKeysStartingWith } from "./test-redis";
export type { TestRedisPrefix } from "./test-redis";
export { waitFor } from "./wait-for";
export { openEventStream } from "./event-stream";
export type { EventStream, ServerSentEvent } from "./event-stream";
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
export { freePort, freeClusterPorts, until } from "./servers/process-group";
export type { OwnProcess } from "./servers/process-group";
export { startRedisCluster } from "./servers/redis-cluster";
export type { OwnRedisCluster, RedisClusterNode } from "./servers/redis-cluster";
export { startSentinelGroup } from "./servers/redis-sentinel";
export type { OwnSentinelGroup } from "./servers/redis-sentinel";
export { startPgBouncer } from "./servers/pgbouncer";
export type { OwnPgBouncer } from "./servers/pgbouncer";
export { fleetRequested, fleetServices, pooledUrl, serviceConnections, FLEET_SWITCH } from "./fleet/fleet";
export type { FleetServices } from "./fleet/fleet";
export { hostileInputs, templateCorpus } from "./template-corpus";
export type { CorpusCase, CorpusNames, CorpusOptions } from "./template-corpus";
export { webhookEventsIn } from "./webhook-events";
export type { WrittenWebhookEvent } from "./webhook-events";
export {
  SYSTEM_PYTHON,
  codeBlock,
  pythonSignatureHeader,
  readMarkdownDoc,
  runNodeVerifier,
  runPythonVerifier,
  signatureVector,
} from "./documented-signatures";
export type { MarkdownDoc, SignatureVector, VerifyCase } from "./documented-signatures";
export { SourceProcesses } from "./source-processes";
