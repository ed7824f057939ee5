import type { InboxCounts, InboxItem, InboxPage } from "./types";

// The feed API as the component calls it (docs/inbox.md "The feed API").

export class InboxApiError extends Error {
  constructor(readonly status: number) {
    super(`svc inbox: HTTP ${status}`);
  }
}

export class InboxApi {
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  private async call<T>(method: "GET" | "POST", path: string, keepalive = false): Promise<T> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}` },
      // A click's report outlives the page that made it (the browser navigates right after).
      keepalive,
      mode: "cors",
      credentials: "omit",
    });
    if (!response.ok) throw new InboxApiError(response.status);
    return (await response.json()) as T;
  }

  items(cursor: string | null, limit: number): Promise<InboxPage> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set("cursor", cursor);
    return this.call("GET", `/v1/inbox/items?${query}`);
  }

  counts(): Promise<InboxCounts> {
    return this.call("GET", "/v1/inbox/counts");
  }

  act(id: string, action: "seen" | "read" | "archive" | "click"): Promise<InboxItem> {
    return this.call("POST", `/v1/inbox/items/${encodeURIComponent(id)}/${action}`, action === "click");
  }

  markAll(mark: "seen" | "read"): Promise<InboxCounts> {
    return this.call("POST", `/v1/inbox/${mark}-all`);
  }

  streamUrl(): string {
    return `${this.base}/v1/inbox/stream?token=${encodeURIComponent(this.token)}`;
  }
}
