import type { DigestItemRow, DigestRow } from "@svc/store";

/** What a digest template sees as `data` (docs/digests.md, "What the template sees"). */
export interface DigestTemplateData {
  /** Events grouped, including those beyond `max_items`. */
  count: number;
  /** Kept events' data, oldest first. */
  events: unknown[];
  first: unknown;
  last: unknown;
  /** `count` minus the events kept. */
  omitted: number;
  /** The rendered grouping key. */
  key: string;
}

/** Items are taken in position order (event order; docs/digests.md), whatever order they come in. */
export function digestTemplateData(
  digest: Pick<DigestRow, "count" | "key">,
  items: readonly Pick<DigestItemRow, "position" | "data">[],
): DigestTemplateData {
  const events = [...items].sort((a, b) => a.position - b.position).map((item) => item.data as unknown);
  return {
    count: digest.count,
    events,
    first: events[0] ?? null,
    last: events[events.length - 1] ?? null,
    omitted: Math.max(0, digest.count - events.length),
    key: digest.key,
  };
}
