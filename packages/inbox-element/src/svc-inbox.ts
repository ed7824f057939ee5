import { reconnectDelayMs, safeUrl } from "./backoff";
import { InboxApi, InboxApiError } from "./inbox-api";
import { relativeTime, stringsFor, type Strings } from "./strings";
import { inboxStyleSheet } from "./styles";
import type { InboxCounts, InboxItem } from "./types";

// <svc-inbox api="https://svc.example.com" token="…" locale="de"> (docs/inbox.md "The component"):
// a bell with the unread count, and a panel of the person's items, kept live over the inbox stream.
// No framework; an open shadow root built with DOM calls only (no innerHTML, no inline styles), so
// it runs under a strict Content-Security-Policy that allows the script's origin.

const PAGE_SIZE = 20;
/** Longest wait for a click's report before the browser follows the link anyway (it is keepalive). */
const CLICK_WAIT_MS = 1_000;
const BELL =
  "M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6v-5a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z";

type Props = { class?: string; part?: string; text?: string; attrs?: Record<string, string> };

function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Node[]) {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.part) element.setAttribute("part", props.part);
  if (props.text !== undefined) element.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

function bellIcon(): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", BELL);
  svg.append(path);
  return svg;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const ignore = () => undefined;

interface ItemNode {
  li: HTMLLIElement;
  link: HTMLElement;
  unread: HTMLSpanElement;
  title: HTMLSpanElement;
  body: HTMLSpanElement;
  time: HTMLTimeElement;
  archive: HTMLButtonElement;
}

export class SvcInbox extends HTMLElement {
  static readonly observedAttributes = ["api", "token", "locale"];

  private readonly bell: HTMLButtonElement;
  private readonly badge: HTMLSpanElement;
  private readonly panel: HTMLDivElement;
  private readonly heading: HTMLHeadingElement;
  private readonly markAllButton: HTMLButtonElement;
  private readonly list: HTMLUListElement;
  private readonly note: HTMLParagraphElement;
  private readonly sentinel: HTMLDivElement;
  private readonly live: HTMLDivElement;
  private readonly nodes = new Map<string, ItemNode>();
  private strings: Strings;
  private tag: string;

  private api: InboxApi | null = null;
  private items: InboxItem[] = [];
  private cursor: string | null = null;
  private loaded = false;
  private loading = false;
  private failed = false;
  private counts: InboxCounts = { unread: 0, unseen: 0, total: 0 };
  private source: EventSource | null = null;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  /** After a reconnect that could not resume, the list is read again. */
  private resync = false;
  private observer: IntersectionObserver | null = null;
  private connected = false;
  private restarting = false;

  constructor() {
    super();
    ({ strings: this.strings, tag: this.tag } = stringsFor(null));
    const root = this.attachShadow({ mode: "open" });
    root.adoptedStyleSheets = [inboxStyleSheet()];
    this.badge = h("span", { class: "badge", part: "badge", attrs: { "aria-hidden": "true" } });
    this.badge.hidden = true;
    this.bell = h(
      "button",
      {
        class: "bell",
        part: "bell",
        attrs: { type: "button", "aria-expanded": "false", "aria-controls": "panel" },
      },
      bellIcon(),
      this.badge,
    );
    this.heading = h("h2", { part: "heading", attrs: { id: "heading" } });
    this.markAllButton = h("button", { class: "mark-all", part: "mark-all", attrs: { type: "button" } });
    this.list = h("ul", { part: "list", attrs: { role: "list" } });
    this.note = h("p", { class: "note", part: "note" });
    this.sentinel = h("div", { class: "sentinel", attrs: { "aria-hidden": "true" } });
    this.panel = h(
      "div",
      {
        class: "panel",
        part: "panel",
        attrs: { id: "panel", role: "region", "aria-labelledby": "heading", tabindex: "-1" },
      },
      h("div", { class: "header", part: "header" }, this.heading, this.markAllButton),
      this.list,
      this.note,
      this.sentinel,
    );
    this.panel.hidden = true;
    this.live = h("div", { class: "sr", attrs: { role: "status", "aria-live": "polite" } });
    root.append(this.bell, this.panel, this.live);

    this.bell.addEventListener("click", () => this.toggle());
    this.markAllButton.addEventListener("click", () => this.markAllRead());
    this.list.addEventListener("click", (event) => this.onListClick(event));
    this.list.addEventListener("auxclick", (event) => this.onListClick(event));
    root.addEventListener("keydown", (event) => this.onKey(event as KeyboardEvent));
    this.applyLocale();
  }

  connectedCallback(): void {
    this.connected = true;
    document.addEventListener("pointerdown", this.onOutside);
    this.observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !this.panel.hidden) void this.loadMore();
      },
      { root: this.panel },
    );
    this.observer.observe(this.sentinel);
    this.restart();
  }

  disconnectedCallback(): void {
    this.connected = false;
    document.removeEventListener("pointerdown", this.onOutside);
    this.observer?.disconnect();
    this.stop();
  }

  attributeChangedCallback(name: string, previous: string | null, value: string | null): void {
    if (previous === value) return;
    if (name === "locale") {
      this.applyLocale();
      this.render();
    } else if (this.connected) {
      this.restart();
    }
  }

  /** Unread, unseen and total counts as last heard (for pages that show them elsewhere). */
  get unreadCount(): number {
    return this.counts.unread;
  }

  /** Starts once for attribute changes made together (an upgrade sets several at once). */
  private restart(): void {
    if (this.restarting) return;
    this.restarting = true;
    queueMicrotask(() => {
      this.restarting = false;
      if (this.connected) this.start();
    });
  }

  private start(): void {
    this.stop();
    const base = (this.getAttribute("api") ?? "").replace(/\/+$/, "");
    const token = this.getAttribute("token") ?? "";
    if (!base || !token) return;
    this.api = new InboxApi(base, token);
    this.items = [];
    this.nodes.clear();
    this.cursor = null;
    this.loaded = false;
    this.failed = false;
    this.attempt = 0;
    this.resync = false;
    this.connect();
    if (!this.panel.hidden) void this.loadMore();
    this.render();
  }

  private stop(): void {
    clearTimeout(this.retry);
    this.source?.close();
    this.source = null;
    this.api = null;
  }

  // Live updates: EventSource resumes by itself (Last-Event-ID) after a dropped connection; when
  // the server refused it (closed), we reconnect with backoff and read the list again.
  private connect(): void {
    const api = this.api;
    if (!api) return;
    const source = new EventSource(api.streamUrl());
    this.source = source;
    const data = <T>(event: Event) => JSON.parse((event as MessageEvent<string>).data) as T;
    source.addEventListener("open", () => (this.attempt = 0));
    source.addEventListener("counts", (event) => {
      this.setCounts(data<InboxCounts>(event));
      if (this.resync) {
        this.resync = false;
        if (this.loaded) this.reload();
      }
    });
    source.addEventListener("item", (event) => this.upsert(data<InboxItem>(event), true));
    source.addEventListener("update", (event) => this.upsert(data<InboxItem>(event), false));
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED && this.source === source) this.reconnectLater(api);
    });
  }

  private reconnectLater(api: InboxApi): void {
    this.source = null;
    // Why was the stream refused? A dead token needs the page to mint a new one.
    api.counts().then(
      (counts) => this.setCounts(counts),
      (error: unknown) => {
        if (error instanceof InboxApiError && error.status === 401 && this.api === api) {
          this.stop();
          this.dispatchEvent(new CustomEvent("token-expired", { bubbles: true, composed: true }));
        }
      },
    );
    clearTimeout(this.retry);
    this.retry = setTimeout(
      () => {
        if (this.api !== api) return;
        this.resync = true;
        this.connect();
      },
      reconnectDelayMs(this.attempt++, Math.random()),
    );
  }

  private applyLocale(): void {
    ({ strings: this.strings, tag: this.tag } = stringsFor(
      this.getAttribute("locale") ?? document.documentElement.lang,
    ));
    this.heading.textContent = this.strings.notifications;
    this.markAllButton.textContent = this.strings.markAllRead;
    this.renderBadge();
  }

  private toggle(open = this.panel.hidden): void {
    this.panel.hidden = !open;
    this.bell.setAttribute("aria-expanded", String(open));
    if (!open) return;
    this.panel.focus();
    if (!this.loaded) void this.loadMore();
    if (this.counts.unseen > 0) this.api?.markAll("seen").then((counts) => this.setCounts(counts), ignore);
  }

  private onOutside = (event: Event): void => {
    if (!this.panel.hidden && !event.composedPath().includes(this)) this.toggle(false);
  };

  private onKey(event: KeyboardEvent): void {
    if (event.key === "Escape" && !this.panel.hidden) {
      this.toggle(false);
      this.bell.focus();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const links = [...this.list.querySelectorAll<HTMLElement>(".link")];
    if (links.length === 0 || this.panel.hidden) return;
    event.preventDefault();
    const at = links.indexOf(this.shadowRoot!.activeElement as HTMLElement);
    const next = event.key === "ArrowDown" ? Math.min(at + 1, links.length - 1) : Math.max(at - 1, 0);
    links[at === -1 ? 0 : next]!.focus();
  }

  private async loadMore(): Promise<void> {
    const api = this.api;
    if (!api || this.loading || (this.loaded && !this.cursor)) return;
    this.loading = true;
    this.render();
    try {
      const page = await api.items(this.loaded ? this.cursor : null, PAGE_SIZE);
      if (this.api !== api) return;
      for (const item of page.items)
        if (!this.items.some((known) => known.id === item.id)) this.items.push(item);
      this.cursor = page.next_cursor;
      this.loaded = true;
      this.failed = false;
    } catch {
      this.failed = true;
    } finally {
      this.loading = false;
      this.render();
    }
  }

  private reload(): void {
    this.items = [];
    this.cursor = null;
    this.loaded = false;
    void this.loadMore();
  }

  private upsert(item: InboxItem, isNew: boolean): void {
    const index = this.items.findIndex((known) => known.id === item.id);
    if (item.archived_at) {
      if (index >= 0) this.items.splice(index, 1);
    } else if (index >= 0) {
      this.items[index] = item;
    } else if (this.loaded) {
      // Newest first; ids sort by creation. Older than every loaded item: only once all are loaded.
      const at = this.items.findIndex((known) => known.id < item.id);
      if (at >= 0) this.items.splice(at, 0, item);
      else if (!this.cursor) this.items.push(item);
    }
    if (isNew && !item.read_at) this.live.textContent = `${this.strings.newItem}: ${item.title}`;
    this.render();
  }

  private setCounts(counts: InboxCounts): void {
    this.counts = counts;
    this.renderBadge();
  }

  private onListClick(event: MouseEvent): void {
    const target = event.target as Element;
    const id = target.closest("li")?.dataset.id;
    const item = this.items.find((known) => known.id === id);
    const api = this.api;
    if (!item || !api) return;
    if (target.closest(".archive")) {
      if (event.type !== "click") return;
      this.items = this.items.filter((known) => known !== item);
      this.render();
      api.act(item.id, "archive").catch(() => this.reload());
      return;
    }
    if (!target.closest(".link")) return;
    if (event.type === "auxclick" && event.button !== 1) return;
    this.markReadHere(item);
    const url = safeUrl(item.url, location.href);
    if (!url) {
      api.act(item.id, "read").catch(ignore);
      return;
    }
    const report = api.act(item.id, "click").catch(ignore);
    // A new tab or window leaves this page running; a plain click navigates it away, so the report
    // is sent first (keepalive, and at most CLICK_WAIT_MS of waiting).
    const plain =
      event.type === "click" && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
    if (!plain) return;
    event.preventDefault();
    void Promise.race([report, wait(CLICK_WAIT_MS)]).then(() => window.location.assign(url));
  }

  private markReadHere(item: InboxItem): void {
    if (item.read_at) return;
    item.read_at = new Date().toISOString();
    this.setCounts({ ...this.counts, unread: Math.max(0, this.counts.unread - 1) });
    this.render();
  }

  private markAllRead(): void {
    const api = this.api;
    if (!api) return;
    const now = new Date().toISOString();
    for (const item of this.items) item.read_at ??= now;
    this.setCounts({ ...this.counts, unread: 0 });
    this.render();
    api.markAll("read").then((counts) => this.setCounts(counts), ignore);
  }

  private renderBadge(): void {
    const unread = this.counts.unread;
    this.badge.textContent = unread > 99 ? "99+" : String(unread);
    this.badge.hidden = unread === 0;
    const label =
      unread > 0
        ? `${this.strings.notifications}, ${this.strings.unreadCount(unread)}`
        : this.strings.notifications;
    this.bell.setAttribute("aria-label", label);
  }

  private render(): void {
    const now = new Date();
    const nodes = this.items.map((item) => this.paint(this.nodeOf(item), item, now).li);
    for (const id of [...this.nodes.keys()])
      if (!this.items.some((item) => item.id === id)) this.nodes.delete(id);
    const children = [...this.list.children];
    if (nodes.length !== children.length || nodes.some((node, i) => children[i] !== node)) {
      const active = this.shadowRoot!.activeElement as HTMLElement | null;
      this.list.replaceChildren(...nodes);
      if (active?.isConnected) active.focus();
    }
    const note = this.failed
      ? this.strings.failed
      : this.items.length > 0
        ? null
        : this.loading || !this.loaded
          ? this.strings.loading
          : this.strings.empty;
    this.note.textContent = note ?? "";
    this.note.hidden = note === null;
    this.list.setAttribute("aria-busy", String(this.loading));
  }

  private nodeOf(item: InboxItem): ItemNode {
    const known = this.nodes.get(item.id);
    if (known) return known;
    const url = safeUrl(item.url, location.href);
    const unread = h("span", { class: "sr" });
    const title = h("span", { class: "title", part: "item-title" });
    const body = h("span", { class: "body", part: "item-body" });
    const time = h("time", { part: "item-time" });
    const link = url
      ? h("a", { class: "link", part: "item-link", attrs: { href: url } }, unread, title, body, time)
      : h(
          "button",
          { class: "link", part: "item-link", attrs: { type: "button" } },
          unread,
          title,
          body,
          time,
        );
    const archive = h("button", { class: "archive", part: "archive", text: "×", attrs: { type: "button" } });
    const li = h("li", { class: "item", part: "item" }, link, archive);
    li.dataset.id = item.id;
    const node = { li, link, unread, title, body, time, archive };
    this.nodes.set(item.id, node);
    return node;
  }

  private paint(node: ItemNode, item: InboxItem, now: Date): ItemNode {
    const isUnread = item.read_at === null;
    node.li.className = isUnread ? "item unread" : "item";
    node.li.setAttribute("part", isUnread ? "item item-unread" : "item");
    node.unread.textContent = isUnread ? `${this.strings.unread}: ` : "";
    node.title.textContent = item.title;
    node.body.textContent = item.body;
    node.body.hidden = item.body === "";
    node.time.dateTime = item.created_at;
    node.time.textContent = relativeTime(this.tag, new Date(item.created_at), now);
    node.archive.setAttribute("aria-label", `${this.strings.archive}: ${item.title}`);
    node.archive.title = this.strings.archive;
    return node;
  }
}
