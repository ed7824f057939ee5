// A webhook receiver for tests: a real HTTP server with one path per endpoint, answering what each
// path is told (statuses in turn, a delay, silence). Signatures are checked afterwards by
// `pythonVerifies`, an HMAC written in Python's standard library from docs/webhooks.md, so a test
// of svc's signing cannot pass because both sides share a bug.
import { execFileSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface WebhookPost {
  path: string;
  raw: Buffer;
  headers: IncomingMessage["headers"];
  body: { id: string; type: string; created_at: string; data: Record<string, unknown> };
  at: number;
}

interface PathBehaviour {
  statuses: number[];
  headers?: Record<string, string>;
  /** Never answers (a dead receiver that keeps the connection open). */
  hang?: boolean;
}

export class WebhookReceiver {
  readonly posts: WebhookPost[] = [];
  private readonly behaviours = new Map<string, PathBehaviour>();
  private readonly hanging = new Set<ServerResponse>();
  private server: Server = createServer((req, res) => void this.handle(req, res));
  base = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** POSTs to `path` take these statuses in turn; the last repeats. `headers` go with a 429 only. */
  answer(path: string, statuses: number[], headers?: Record<string, string>): void {
    this.behaviours.set(path, { statuses: [...statuses], ...(headers ? { headers } : {}) });
  }

  hang(path: string): void {
    this.behaviours.set(path, { statuses: [200], hang: true });
  }

  to(path: string): WebhookPost[] {
    return this.posts.filter((post) => post.path === path);
  }

  close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = req.url ?? "/";
    this.posts.push({
      path,
      raw,
      headers: req.headers,
      body: JSON.parse(raw.toString("utf8")) as WebhookPost["body"],
      at: Date.now(),
    });
    const behaviour = this.behaviours.get(path) ?? { statuses: [200] };
    if (behaviour.hang) {
      this.hanging.add(res);
      return;
    }
    const status =
      behaviour.statuses.length > 1 ? behaviour.statuses.shift()! : (behaviour.statuses[0] ?? 200);
    res.writeHead(status, status === 429 ? (behaviour.headers ?? {}) : {}).end();
  }
}

const PYTHON_CHECK = `
import hashlib, hmac, json, sys, time
secrets, posts = json.load(sys.stdin)
out = []
for post in posts:
    raw = bytes.fromhex(post["raw"])
    fields = [p.split("=", 1) for p in post["signature"].split(",")]
    t = [v for k, v in fields if k == "t"][0]
    signatures = [v for k, v in fields if k == "v1"]
    fresh = abs(time.time() - int(t)) <= 300
    ok = {}
    for secret in secrets:
        expected = hmac.new(secret.encode(), t.encode() + b"." + raw, hashlib.sha256).hexdigest()
        ok[secret] = fresh and any(hmac.compare_digest(expected, s) for s in signatures)
    out.append(ok)
print(json.dumps(out))
`;

/** For each post, which of `secrets` signed it, checked by /usr/bin/python3's hmac. */
export function pythonVerifies(secrets: string[], posts: WebhookPost[]): Record<string, boolean>[] {
  const input = JSON.stringify([
    secrets,
    posts.map((post) => ({
      raw: post.raw.toString("hex"),
      signature: String(post.headers["svc-signature"]),
    })),
  ]);
  const output = execFileSync("/usr/bin/python3", ["-c", PYTHON_CHECK], { input, encoding: "utf8" });
  return JSON.parse(output) as Record<string, boolean>[];
}
