import { agentRows, softDeleteAgent, type AgentFields, type AgentRow, type RootDatabase } from "@svc/store";
import type { ApiKeyCache } from "../api-keys/api-key-cache";
import { keyedResource } from "../shared/keyed-resource";
import { validateAgentInput, type AgentInput } from "./agent-input";
import { serializeAgent } from "./serialize-agent";

// Defaults (docs/agents.md, "Fields"): any category, 5 per person per day, `high`, one day to approve.
const AGENT_DEFAULTS: Required<Omit<AgentInput, "key" | "name">> = {
  description: "",
  categories: null,
  frequency_caps: [{ period: 86400, limit: 5 }],
  max_importance: "high",
  approval: null,
  approval_ttl_seconds: 86400,
  reviewers: [],
  enabled: true,
};

/** Agents: admin CRUD; DELETE is soft (the row stays for attribution and `agent_deleted`). */
export function agentsResource({
  prisma,
  now,
  apiKeyCache,
}: {
  prisma: RootDatabase;
  now: () => Date;
  apiKeyCache?: ApiKeyCache;
}) {
  const resource = keyedResource<AgentRow, AgentInput, AgentFields, ReturnType<typeof serializeAgent>>({
    noun: "agent",
    db: prisma,
    rows: agentRows,
    toFields: (input, full) => validateAgentInput(prisma, full ? { ...AGENT_DEFAULTS, ...input } : input),
    serialize: serializeAgent,
    isHidden: (row) => row.deleted_at !== null,
    async remove(row) {
      await softDeleteAgent(prisma, row.key, now());
    },
  });
  // An agent's keys are refused once it is disabled or deleted: cached key rows carry its state.
  if (!apiKeyCache) return resource;
  const changed = <T>(result: T): T => {
    apiKeyCache.invalidate();
    return result;
  };
  return {
    ...resource,
    replace: (...args: Parameters<typeof resource.replace>) => resource.replace(...args).then(changed),
    update: (...args: Parameters<typeof resource.update>) => resource.update(...args).then(changed),
    remove: (...args: Parameters<typeof resource.remove>) => resource.remove(...args).then(changed),
  };
}
