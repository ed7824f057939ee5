import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isInternalAddress } from "@svc/providers";

// Which endpoint URLs are accepted (docs/webhooks.md "Endpoint URLs"). `https://` only, and no
// address inside the network svc runs in, unless webhooks.allow_private_urls (development, tests:
// then `http://` and internal addresses are allowed). This check answers the operator with a 422
// early; the guard that counts runs at every connect (a guarded dispatcher), since a name can
// resolve elsewhere later.

/** Null when the URL may be an endpoint; else why not (the 422's message). */
export async function webhookUrlProblem(
  text: string,
  options: { allowPrivate: boolean; resolve?: (host: string) => Promise<string[]> },
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "expected an absolute URL";
  }
  if (options.allowPrivate ? !["https:", "http:"].includes(url.protocol) : url.protocol !== "https:")
    return options.allowPrivate ? "expected an http:// or https:// URL" : "expected an https:// URL";
  if (url.username || url.password) return "must not hold credentials";
  if (options.allowPrivate) return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) !== 0)
    return isInternalAddress(host) ? "must not point at an internal network address" : null;
  if (host === "localhost" || host.endsWith(".localhost") || !host.includes("."))
    return "must not point at an internal network address";
  const resolve = options.resolve ?? resolveAll;
  const addresses = await resolve(host).catch(() => [] as string[]);
  // A name that does not resolve yet is accepted: the connect-time guard judges what it becomes.
  return addresses.some(isInternalAddress) ? "must not point at an internal network address" : null;
}

async function resolveAll(host: string): Promise<string[]> {
  const answers = await Promise.race([
    lookup(host, { all: true }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 2_000).unref()),
  ]);
  return answers.map((answer) => answer.address);
}
