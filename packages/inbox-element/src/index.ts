// The module served at GET /inbox.js: importing it defines <svc-inbox> (docs/inbox.md "The component").
import { SvcInbox } from "./svc-inbox";

if (!customElements.get("svc-inbox")) customElements.define("svc-inbox", SvcInbox);

export { SvcInbox };
export type { InboxCounts, InboxItem } from "./types";
