// Numbers and links of the baseline must survive the AI rewrite verbatim (docs/digests.md,
// "Smart mode"). Links are URLs and the link placeholders (`[[svc:unsubscribe_url]]`) that
// delivery fills in.

const LINK = /\[\[svc:[a-z_]+\]\]|\b(?:https?|mailto):[^\s<>"'`]+/gi;
const NUMBER = /\d+(?:[.,:/]\d+)*/g;
// Sentence punctuation right after a link belongs to the sentence, not the link.
const TRAILING = /[.,;:!?)\]}]+$/;

export interface PreservedTokens {
  links: string[];
  numbers: string[];
}

export function preservedTokens(text: string): PreservedTokens {
  const links = (text.match(LINK) ?? []).map((link) =>
    link.startsWith("[[") ? link : link.replace(TRAILING, ""),
  );
  const withoutLinks = text.replace(LINK, " ");
  return { links: unique(links), numbers: unique(withoutLinks.match(NUMBER) ?? []) };
}

/** The first baseline number or link the rewrite lacks (as a whole token), or null when all survive. */
export function missingToken(baseline: string, rewrite: string): string | null {
  const wanted = preservedTokens(baseline);
  const found = preservedTokens(rewrite);
  const links = new Set(found.links);
  const numbers = new Set(found.numbers);
  return wanted.links.find((link) => !links.has(link)) ?? wanted.numbers.find((n) => !numbers.has(n)) ?? null;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
