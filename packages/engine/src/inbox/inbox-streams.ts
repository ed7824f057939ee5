import { AppError, streamEventFor } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { NoticeBus } from "@svc/queue";
import {
  readInboxChangesAfter,
  readInboxStreamHeads,
  type InboxItemRow,
  type InboxStreamHead,
  type RootDatabase,
} from "@svc/store";
import { countInboxStreamEvent, countInboxStreams } from "../metrics/record-metrics";
import type { OutboxNotice } from "../outbox/relay-outbox";
import { INBOX_TOPICS, inboxNoticeChannel } from "../shared/inbox-changes";
import { recordInboxReceived } from "./inbox-feed";
import { inboxItemViews, type InboxItemView } from "./inbox-item-view";
import type { InboxPerson } from "./inbox-tokens";

// The inbox streams one API process holds (docs/inbox.md "The stream"). A person with open streams
// here has one subscription to their notice channel; a notice, a new stream, a resume or a
// resubscription (`onResync`) marks the person for a catch-up, and one catch-up loop reads every
// marked person's changes after their streams' positions from Postgres in two statements and
// writes them out. Notices are only hints: a lost one delays a change until the next, and a
// repeated one finds nothing new. Each stream drops what it has seen by position, so nothing is
// sent twice and, as a person's changes commit in position order, nothing is skipped.

/** Where a stream's bytes go: the HTTP response (Server-Sent Events framing is done here). */
export interface InboxStreamSink {
  /** Writes a chunk; false when the client is not reading fast enough (the stream is then closed). */
  write(chunk: string): boolean;
  /** Ends the response. */
  end(): void;
}

export interface InboxStreamsDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "inbox" | "secrets" | "api">;
  notices: Pick<NoticeBus, "channel" | "subscribe" | "onResync">;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
  now: () => Date;
}

export interface InboxStreams {
  /**
   * Opens a stream for the person from `after` (a `Last-Event-ID`; null: from now). Resolves once
   * the person's notices are subscribed, with the function that closes the stream (call it when
   * the client goes away). 429 over the person's limit, 503 over the process's or without Redis.
   */
  open(person: InboxPerson, after: bigint | null, sink: InboxStreamSink): Promise<() => void>;
  /** Open streams in this process. */
  size(): number;
  /** Ends every stream and stops. */
  close(): Promise<void>;
}

interface Stream {
  person: Person;
  sink: InboxStreamSink;
  /** Last position sent; null until the first catch-up places a stream opened "from now". */
  cursor: bigint | null;
  nonce: string;
  expiresAtMs: number;
  /** Counts follow the first catch-up and every catch-up that sent an event. */
  countsDue: boolean;
  closed: boolean;
}

interface Person {
  id: string;
  streams: Set<Stream>;
  subscribed: Promise<void>;
  unsubscribe: (() => Promise<void>) | null;
}

/** Changes read per person and catch-up (more are read in the next round). */
const CHANGES_PER_ROUND = 200;
/** People caught up per round (two statements each round). */
const PEOPLE_PER_ROUND = 500;
/** Wait before a failed catch-up is tried again. */
const RETRY_MS = 1_000;

export function createInboxStreams(deps: InboxStreamsDeps): InboxStreams {
  const { max_streams: maxStreams, max_streams_per_person: maxPerPerson } = deps.config.inbox;
  const people = new Map<string, Person>();
  const marked = new Set<Person>();
  let open = 0;
  let closed = false;
  let running: Promise<void> | null = null;
  let scheduled = false;
  let received: Promise<void> | null = null;
  const pendingReceived: string[] = [];

  const endStream = (stream: Stream) => {
    if (stream.closed) return;
    stream.closed = true;
    open--;
    countInboxStreams(-1);
    stream.sink.end();
    const person = stream.person;
    person.streams.delete(stream);
    if (person.streams.size > 0) return;
    people.delete(person.id);
    marked.delete(person);
    void person.subscribed.then(() => person.unsubscribe?.()).catch(() => undefined);
  };

  const write = (stream: Stream, chunk: string) => {
    if (stream.closed) return;
    // A client that stops reading is dropped rather than buffered without bound; it resumes later.
    if (!stream.sink.write(chunk)) endStream(stream);
  };

  const mark = (person: Person) => {
    if (closed || person.streams.size === 0) return;
    marked.add(person);
    if (!running && !scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        running ??= drain().finally(() => (running = null));
      });
    }
  };

  async function drain(): Promise<void> {
    while (marked.size > 0 && !closed) {
      const round = [...marked].slice(0, PEOPLE_PER_ROUND);
      for (const person of round) marked.delete(person);
      try {
        await catchUp(round);
      } catch (error) {
        // Postgres away: the people stay marked and are tried again shortly.
        deps.logger.warn("inbox streams: catch-up failed; retrying", {
          error: error instanceof Error ? error.message : String(error),
        });
        for (const person of round) if (person.streams.size > 0) marked.add(person);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }

  async function catchUp(round: Person[]): Promise<void> {
    const positions = round.flatMap((person) => {
      const cursors = [...person.streams].flatMap((s) => (s.cursor === null ? [] : [s.cursor]));
      if (cursors.length === 0) return [];
      const after = cursors.reduce((a, b) => (b < a ? b : a));
      return [{ recipientId: person.id, after }];
    });
    const changes = await readInboxChangesAfter(deps.prisma, positions, CHANGES_PER_ROUND);
    // Heads after changes: the counts sent with changes include at least those changes.
    const headRows = await readInboxStreamHeads(
      deps.prisma,
      round.map((p) => p.id),
    );
    const heads = new Map(headRows.map((h) => [h.recipient_id, h]));
    const views = new Map((await inboxItemViews(deps, changes)).map((view) => [view.id, view]));
    const byPerson = new Map<string, InboxItemRow[]>();
    for (const row of changes) {
      const list = byPerson.get(row.recipient_id);
      if (list) list.push(row);
      else byPerson.set(row.recipient_id, [row]);
    }
    const firstReceived: string[] = [];
    for (const person of round) {
      const rows = byPerson.get(person.id) ?? [];
      const head = heads.get(person.id);
      for (const stream of [...person.streams]) {
        // Revoked (preference token rotated) or erased: the token this stream was opened with is dead.
        if (!head || head.nonce !== stream.nonce) {
          endStream(stream);
          continue;
        }
        sendTo(stream, rows, views, head);
      }
      if (rows.length === CHANGES_PER_ROUND) mark(person); // more to read
      for (const row of rows) if (row.received_at === null) firstReceived.push(row.id);
    }
    if (firstReceived.length > 0) {
      pendingReceived.push(...firstReceived);
      received ??= recordReceived().finally(() => (received = null));
    }
  }

  // Off the streams' path: one write at a time, taking every item received meanwhile (at most
  // 1,000 per write). A failure leaves them unstamped; the next client that gets them stamps them.
  async function recordReceived(): Promise<void> {
    while (pendingReceived.length > 0) {
      const ids = pendingReceived.splice(0, 1_000);
      await recordInboxReceived(deps, ids).catch((error: unknown) =>
        deps.logger.warn("inbox streams: could not record received items", {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  }

  function sendTo(
    stream: Stream,
    rows: readonly InboxItemRow[],
    views: ReadonlyMap<string, InboxItemView>,
    head: InboxStreamHead,
  ) {
    if (stream.cursor === null) {
      // Opened "from now": placed at the person's latest position; the client reads the feed.
      stream.cursor = head.last_seq;
    } else {
      // Each item appears once in a round, in its latest state: whether the stream knew it is
      // decided by where the stream stood before the round.
      const from = stream.cursor;
      for (const row of rows) {
        const event = streamEventFor(row, from);
        if (!event) continue;
        write(stream, frame(row.seq, event, views.get(row.id)));
        countInboxStreamEvent(event);
        stream.cursor = row.seq;
        stream.countsDue = true;
      }
    }
    if (!stream.countsDue) return; // a repeat: nothing new for this stream
    stream.countsDue = false;
    write(
      stream,
      frame(stream.cursor, "counts", { unread: head.unread, unseen: head.unseen, total: head.total }),
    );
    countInboxStreamEvent("counts");
  }

  const heartbeat = setInterval(() => {
    const now = deps.now().getTime();
    for (const person of [...people.values()])
      for (const stream of [...person.streams]) {
        if (stream.expiresAtMs <= now)
          endStream(stream); // the client needs a new token
        else write(stream, ": keep-alive\n\n");
      }
  }, deps.config.inbox.heartbeat_seconds * 1000);
  heartbeat.unref();

  const stopResync = deps.notices.onResync(() => {
    for (const person of people.values()) mark(person);
  });

  const onNotice = (person: Person) => (message: string) => {
    let notice: OutboxNotice;
    try {
      notice = JSON.parse(message) as OutboxNotice;
    } catch {
      return;
    }
    // A repeat of a change every stream has seen needs no read.
    const seq = notice.topic !== INBOX_TOPICS.revoked ? notice.payload.seq : undefined;
    if (typeof seq === "string" && /^\d{1,18}$/.test(seq)) {
      const position = BigInt(seq);
      if ([...person.streams].every((s) => s.cursor !== null && s.cursor >= position)) return;
    }
    mark(person);
  };

  return {
    async open(inboxPerson, after, sink) {
      if (closed) throw new AppError("unavailable", "this process is shutting down; reconnect");
      if (open >= maxStreams)
        throw new AppError(
          "unavailable",
          `this process holds its limit of ${maxStreams} streams; reconnect`,
          {
            headers: { "Retry-After": "5" },
          },
        );
      let person = people.get(inboxPerson.recipientId);
      if (person && person.streams.size >= maxPerPerson)
        throw new AppError("rate_limited", `at most ${maxPerPerson} open streams per person`, {
          headers: { "Retry-After": "30" },
        });
      if (!person) {
        const created: Person = {
          id: inboxPerson.recipientId,
          streams: new Set(),
          subscribed: Promise.resolve(),
          unsubscribe: null,
        };
        created.subscribed = deps.notices
          .subscribe(deps.notices.channel(inboxNoticeChannel(created.id)), onNotice(created))
          .then((stop) => {
            created.unsubscribe = stop;
          });
        person = created;
        people.set(person.id, person);
      }
      const stream: Stream = {
        person,
        sink,
        cursor: after,
        nonce: inboxPerson.nonce,
        expiresAtMs: inboxPerson.expiresAt.getTime(),
        countsDue: true,
        closed: false,
      };
      person.streams.add(stream);
      open++;
      countInboxStreams(1);
      try {
        // Subscribed before the first read, so no change can fall between the two.
        await person.subscribed;
      } catch (error) {
        endStream(stream);
        throw new AppError("unavailable", "live updates are unavailable (Redis); reconnect", {
          headers: { "Retry-After": "5" },
          cause: error,
        });
      }
      mark(person);
      return () => endStream(stream);
    },
    size: () => open,
    async close() {
      closed = true;
      clearInterval(heartbeat);
      stopResync();
      for (const person of [...people.values()]) for (const stream of [...person.streams]) endStream(stream);
      await running;
      await received;
    },
  };
}

/** One Server-Sent Event: its id is a position, so `Last-Event-ID` resumes after it. */
function frame(id: bigint | null, event: string, data: unknown): string {
  return `${id === null ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
