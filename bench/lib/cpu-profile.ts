import { readFileSync } from "node:fs";

// Summarises a V8 .cpuprofile by self time: top functions, and totals per package (node_modules
// package, node internals, or our own workspace), so "where the time goes" is one glance.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function packageOf(url: string): string {
  if (!url) return "(native/gc/idle)";
  if (url.startsWith("node:")) return "node internals";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const ours = /\/(apps|packages)\/([^/]+)\//.exec(url);
  return ours ? `svc ${ours[1]}/${ours[2]}` : url;
}

/** `lastSeconds` keeps only the samples of that window before the profile's end (the load, not start-up). */
export function summarizeProfile(file: string, top = 40, lastSeconds = Infinity): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const from = profile.endTime - lastSeconds * 1e6;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const short = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(apps|packages)\//, "$1/");
    const fn = `${functionName || "(anonymous)"} ${short}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const pkg = packageOf(url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `${pct(us)}  ${name}`)
      .join("\n");
  return `total ${(total / 1e6).toFixed(1)} s sampled\n\nby package (self time):\n${rows(byPackage, 25)}\n\ntop functions (self time):\n${rows(byFunction, top)}`;
}

/** A phase of a request and how to recognise its frames by URL (or, for a frame without one, by
 * name). A phase that `owns` its callees (a library doing I/O: everything under pg is the database
 * client's, a socket write included) takes a sample when any frame of its stack matches, the first
 * such rule in the list winning; otherwise the innermost matching frame decides (middleware calls
 * the next one synchronously, so an outer frame says little). */
export interface PhaseRule {
  phase: string;
  url?: RegExp;
  name?: RegExp;
  owns?: boolean;
}

export interface PhaseTotals {
  /** Sampled CPU per phase in µs, idle left out; "(gc)" and "(program)" are their own phases. */
  byPhase: Map<string, number>;
  /** The unattributed remainder by package, to see which rule is missing. */
  unmatched: Map<string, number>;
  totalUs: number;
}

/** Attributes every non-idle sample of `file` to a phase (see PhaseRule). */
export function profilePhases(file: string, rules: readonly PhaseRule[]): PhaseTotals {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const own = (id: number): number => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const index = rules.findIndex((rule) =>
      url ? (rule.url?.test(url) ?? false) : (rule.name?.test(functionName) ?? false),
    );
    return index < 0 ? Infinity : index;
  };
  // Per node: the first owning rule on its stack, and the innermost rule that matched.
  const owner = new Map<number, number>();
  const innermost = new Map<number, number>();
  const resolve = (id: number): void => {
    if (owner.has(id)) return;
    const up = parent.get(id);
    if (up !== undefined) resolve(up);
    const mine = own(id);
    const mineOwns = mine !== Infinity && rules[mine]!.owns === true;
    owner.set(id, Math.min(mineOwns ? mine : Infinity, up === undefined ? Infinity : owner.get(up)!));
    innermost.set(id, mine !== Infinity ? mine : up === undefined ? Infinity : innermost.get(up)!);
  };
  const bestOf = (id: number): number => {
    resolve(id);
    return owner.get(id) !== Infinity ? owner.get(id)! : innermost.get(id)!;
  };
  const byPhase = new Map<string, number>();
  const unmatched = new Map<string, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const { functionName, url } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") return;
    totalUs += us;
    const special =
      functionName === "(garbage collector)" ? "(gc)" : functionName === "(program)" ? "(program)" : null;
    const index = special ? Infinity : bestOf(id);
    const phase = special ?? (index === Infinity ? null : rules[index]!.phase);
    if (phase) byPhase.set(phase, (byPhase.get(phase) ?? 0) + us);
    else {
      byPhase.set("other", (byPhase.get("other") ?? 0) + us);
      const pkg = packageOf(url);
      unmatched.set(pkg, (unmatched.get(pkg) ?? 0) + us);
    }
  });
  return { byPhase, unmatched, totalUs };
}
