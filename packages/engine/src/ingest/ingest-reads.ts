import {
  findAgentRow,
  findFatigueState,
  findMessageByDedupKey,
  findRecipientWithPolicyRows,
  type AgentRow,
  type FatigueStateRow,
  type IngestSnapshot,
  type MessageRow,
  type RootDatabase,
  type RecipientWithPolicyRows,
  type Transaction,
} from "@svc/store";
import { ingestConfig, readIngestConfig, type IngestConfig } from "./ingest-config-cache";

// Everything the decision of one event reads (decide-event.ts), behind one interface with two
// ways to read it. `directReads` asks the tables one statement at a time: plain, and the
// reference. `snapshotReads` answers from the snapshot ingest already read in one statement and
// the per-process configuration copy, asking the tables only for what the snapshot cannot know.
// The decision is the same either way; a property test drives both with random rules, events and
// people and requires the same outcomes and messages (__tests__/ingest-read-paths.test.ts).

export interface IngestReads {
  /** Rules (enabled), templates and categories as this transaction sees them. */
  configuration(): Promise<IngestConfig>;
  /** The person with addresses and consents; `changed`: this transaction wrote their profile. */
  recipient(externalId: string, changed: boolean): Promise<RecipientWithPolicyRows | null>;
  /** The agent row, deleted or not; null when there is none. */
  agent(key: string): Promise<AgentRow | null>;
  fatigue(recipientId: string, category: string): Promise<FatigueStateRow | null>;
  /** The message a dedup key names (a retried event's message), if any. */
  messageByDedupKey(dedupKey: string): Promise<MessageRow | null>;
}

export function directReads(tx: Transaction): IngestReads {
  return {
    configuration: () => readIngestConfig(tx, "direct"),
    recipient: (externalId) => findRecipientWithPolicyRows(tx, { external_id: externalId }),
    agent: (key) => findAgentRow(tx, key),
    fatigue: (recipientId, category) => findFatigueState(tx, recipientId, category),
    messageByDedupKey: (dedupKey) => findMessageByDedupKey(tx, dedupKey),
  };
}

/** Reads from `snapshot` (taken in `tx` under the person's locks) and the configuration copy of `owner`. */
export function snapshotReads(owner: RootDatabase, tx: Transaction, snapshot: IngestSnapshot): IngestReads {
  const direct = directReads(tx);
  const recipientId = snapshot.recipient?.id ?? null;
  return {
    configuration: () => ingestConfig(owner, tx, snapshot.configVersion),
    recipient: (externalId, changed) =>
      changed || externalId !== snapshot.event.recipient_external_id
        ? direct.recipient(externalId, changed)
        : Promise.resolve(snapshot.recipient),
    agent: (key) => (key === snapshot.event.agent_key ? Promise.resolve(snapshot.agent) : direct.agent(key)),
    // The snapshot holds every fatigue row of the person it found; a person created since has none.
    fatigue: (id, category) =>
      recipientId !== null && id !== recipientId
        ? direct.fatigue(id, category)
        : Promise.resolve(snapshot.fatigue.find((f) => f.category === category) ?? null),
    // Only a retried event can have messages; the snapshot says whether any names it.
    messageByDedupKey: (dedupKey) =>
      snapshot.hasMessages ? direct.messageByDedupKey(dedupKey) : Promise.resolve(null),
  };
}
