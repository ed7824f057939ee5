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
