import { Cluster } from "ioredis";
import type { RedisClient } from "./connection";

// What /readyz says about Redis (docs/operations.md "Probes"): the topology, and on a Redis Cluster
// the state each primary reports. Ready means commands can be served: one server or Sentinel's
// primary answers PING; every primary of a cluster answers and reports `cluster_state:ok`.

export interface RedisReadiness {
  ready: boolean;
  details: {
    mode: "single" | "sentinel" | "cluster";
    cluster?: {
      state: string;
      primaries: number;
      replicas: number;
      slots_assigned: number;
      slots_ok: number;
    };
  };
}

const field = (info: string, name: string): string | undefined =>
  new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();

export async function redisReadiness(
  client: RedisClient,
  mode: "single" | "sentinel" | "cluster",
): Promise<RedisReadiness> {
  if (!(client instanceof Cluster)) {
    await client.ping();
    return { ready: true, details: { mode } };
  }
  const primaries = client.nodes("master");
  if (primaries.length === 0) throw new Error("the cluster client knows no primary");
  const [infos, nodes] = await Promise.all([
    Promise.all(primaries.map((node) => node.cluster("INFO") as Promise<string>)),
    primaries[0]!.cluster("NODES") as Promise<string>,
  ]);
  const states = infos.map((info) => field(info, "cluster_state") ?? "unknown");
  const state = states.find((s) => s !== "ok") ?? "ok";
  const first = infos[0]!;
  const cluster = {
    state,
    primaries: Number(field(first, "cluster_size") ?? primaries.length),
    replicas: liveReplicas(nodes),
    slots_assigned: Number(field(first, "cluster_slots_assigned") ?? 0),
    slots_ok: Number(field(first, "cluster_slots_ok") ?? 0),
  };
  return { ready: state === "ok", details: { mode, cluster } };
}

// CLUSTER NODES lines: `<id> <addr> <flags> <primary id> …`; a replica's flags hold `slave`.
function liveReplicas(nodes: string): number {
  return nodes
    .split("\n")
    .map((line) => line.split(" ")[2] ?? "")
    .filter((flags) => flags.split(",").includes("slave") && !/fail/.test(flags)).length;
}
