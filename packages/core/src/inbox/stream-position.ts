// Positions in a person's stream of inbox changes (docs/inbox.md "The stream"). Every change of a
// person's items takes the next value of one sequence while holding the person's inbox lock, so a
// person's changes commit in `seq` order and "everything after position N" misses nothing. An
// event's id is the `seq` it reports; `Last-Event-ID` names the last one a client received.

export interface InboxChangePosition {
  /** The item's latest change. */
  seq: bigint;
  /** The change that created the item. */
  created_seq: bigint;
}

/**
 * What a stream that stood at `cursor` before a catch-up is told about an item whose latest change
 * (read in that catch-up) is at `seq`: `item` when the stream never saw the item (it reports the
 * item as it is now), `update` when it saw an earlier state, nothing when it has seen this change
 * already (a repeat, dropped).
 */
export function streamEventFor(change: InboxChangePosition, cursor: bigint): "item" | "update" | null {
  if (change.seq <= cursor) return null;
  return change.created_seq > cursor ? "item" : "update";
}

const POSITION = /^(0|[1-9]\d{0,17})$/;

/**
 * A `Last-Event-ID` (or the first event id a stream sends): a decimal position. Undefined or empty
 * means "from now"; anything else that is not a position is refused by the caller.
 */
export function parseStreamPosition(text: string | undefined): bigint | null | "invalid" {
  if (text === undefined || text === "") return null;
  return POSITION.test(text) ? BigInt(text) : "invalid";
}
