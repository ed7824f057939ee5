/** One template of the parity corpus; `html` renders it as an e-mail body (autoescape). */
export interface CorpusCase {
  source: string;
  html?: boolean;
}

/** A case per source; html cases are written `{ source, html: true }`. */
export function cases(...items: (string | CorpusCase)[]): CorpusCase[] {
  return items.map((item) => (typeof item === "string" ? { source: item } : item));
}

/** The event data every corpus template renders with, as `data` (svc's template variable). */
export const CORPUS_DATA = {
  order_id: "A-1042",
  customer: { first_name: "Zoë", last_name: "Müller", email: "zoe@example.com", vip: true, tier: null },
  products: [
    { sku: "TEA-1", name: "Green tea", qty: 2, price: 4.5, tags: ["tea", "organic"], gift: false },
    { sku: "MUG-7", name: "Mug", qty: 1, price: 12, tags: [], gift: true },
    { sku: "CUP-3", name: "cup set", qty: 3, price: 7.25, tags: ["gift"], gift: false },
  ],
  total: 41.75,
  count: 7,
  discount: 0.15,
  shipped: false,
  note: "",
  tracking: null,
  message: 'Hello <b>world</b> & "friends"',
  long_text: "The quick brown fox jumps over the lazy dog near the riverbank today",
  scores: [3, 1, 4, 1, 5, 9, 2, 6],
  prices: { basic: 10, pro: 25.5, team: 99 },
  words: ["beta", "Alpha", "gamma", "alpha"],
  nested: { a: { b: { c: "deep" } } },
  url: "https://shop.example/orders?id=A-1042&ref=mail",
  lines: "first line\nsecond line\n\nfourth line",
  tree: [
    { name: "Drinks", children: [{ name: "Tea", children: [{ name: "Green" }] }, { name: "Coffee" }] },
    { name: "Food <new>", children: [] },
  ],
};
