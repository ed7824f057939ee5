import { applyInboxAction, engagementOfInboxAction, type InboxItemState } from "../item-actions";
import { parseStreamPosition, streamEventFor } from "../stream-position";

const T0 = new Date("2026-03-01T10:00:00Z");
const NOW = new Date("2026-03-01T12:00:00Z");
const fresh: InboxItemState = { seen_at: null, read_at: null, archived_at: null };
const read: InboxItemState = { seen_at: T0, read_at: T0, archived_at: null };
const archived: InboxItemState = { seen_at: null, read_at: null, archived_at: T0 };

describe("applyInboxAction", () => {
  test.each<[string, Parameters<typeof applyInboxAction>[0], InboxItemState, InboxItemState | null]>([
    ["seen stamps seen_at", "seen", fresh, { ...fresh, seen_at: NOW }],
    ["seen twice keeps the first time", "seen", read, null],
    ["read stamps read_at and seen_at", "read", fresh, { seen_at: NOW, read_at: NOW, archived_at: null }],
    [
      "read keeps an earlier seen_at",
      "read",
      { ...fresh, seen_at: T0 },
      { seen_at: T0, read_at: NOW, archived_at: null },
    ],
    ["read again changes nothing", "read", read, null],
    ["click reads", "click", fresh, { seen_at: NOW, read_at: NOW, archived_at: null }],
    ["unread clears read_at only", "unread", read, { seen_at: T0, read_at: null, archived_at: null }],
    ["unread of an unread item changes nothing", "unread", fresh, null],
    ["archive stamps archived_at", "archive", fresh, { ...fresh, archived_at: NOW }],
    ["archive twice keeps the first time", "archive", archived, null],
    ["unarchive clears archived_at", "unarchive", archived, fresh],
    ["unarchive of a live item changes nothing", "unarchive", fresh, null],
  ])("%s", (_why, action, state, expected) => {
    expect(applyInboxAction(action, state, NOW)).toEqual(expected);
  });

  it("reports opened for read, opened and clicked for click, nothing else", () => {
    expect(engagementOfInboxAction("read")).toEqual(["opened"]);
    expect(engagementOfInboxAction("click")).toEqual(["opened", "clicked"]);
    for (const action of ["seen", "unread", "archive", "unarchive"] as const)
      expect(engagementOfInboxAction(action)).toEqual([]);
  });
});

describe("stream positions", () => {
  test.each<[string, { seq: bigint; created_seq: bigint }, bigint, "item" | "update" | null]>([
    ["a new item", { seq: 5n, created_seq: 5n }, 4n, "item"],
    ["an item created and changed since", { seq: 9n, created_seq: 5n }, 3n, "item"],
    ["a change of an item the stream saw", { seq: 9n, created_seq: 5n }, 5n, "update"],
    ["a change already sent (a repeat)", { seq: 9n, created_seq: 5n }, 9n, null],
    ["an older change", { seq: 4n, created_seq: 2n }, 9n, null],
  ])("%s", (_why, change, cursor, expected) => {
    expect(streamEventFor(change, cursor)).toBe(expected);
  });

  test.each<[string | undefined, bigint | null | "invalid"]>([
    [undefined, null],
    ["", null],
    ["0", 0n],
    ["12345", 12345n],
    ["999999999999999999", 999999999999999999n],
    ["9999999999999999999", "invalid"],
    ["-1", "invalid"],
    ["01", "invalid"],
    ["1e3", "invalid"],
    [" 1", "invalid"],
    ["abc", "invalid"],
  ])("Last-Event-ID %j", (text, expected) => {
    expect(parseStreamPosition(text)).toBe(expected);
  });
});
