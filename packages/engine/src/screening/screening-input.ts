import type { Importance } from "@svc/core";
import type { AgentRow, MessageRow } from "@svc/store";

// What the decision model is shown (docs/screening.md "What the model sees"): the sender, the
// category, the claimed importance and the rendered content. Never the person (profile, external
// id, addresses) and never the message's `data`: only what the template put into the text.

export interface ScreeningInput {
  sender: { agent: string; description: string };
  category: string;
  importance: Importance;
  content: {
    title: string;
    body: string;
    url: string | null;
    /** Every http(s) link in the rendered content, each channel's rendering included. */
    links: string[];
    /** Buttons of the notification; svc's templates have none yet, so always empty. */
    actions: { label: string; url: string }[];
  };
}

interface StoredRendering {
  title?: unknown;
  body?: unknown;
  url?: unknown;
}

export function screeningInputOf(message: MessageRow, agent: AgentRow | null): ScreeningInput {
  const content = (message.content ?? {}) as StoredRendering & { variants?: Record<string, StoredRendering> };
  return {
    sender: { agent: message.agent_key ?? "", description: agent?.description ?? "" },
    category: message.category,
    importance: message.importance,
    content: {
      title: text(content.title),
      body: text(content.body),
      url: typeof content.url === "string" ? content.url : null,
      links: linksIn(renderedTexts(message)),
      actions: [],
    },
  };
}

/** Every rendered text of the message: title, body and url of each channel's rendering. */
export function renderedTexts(message: Pick<MessageRow, "content">): string[] {
  const content = (message.content ?? {}) as StoredRendering & { variants?: Record<string, StoredRendering> };
  const renderings = [content, ...Object.values(content.variants ?? {})];
  return renderings.flatMap((r) => [text(r.title), text(r.body), text(r.url)]).filter((t) => t !== "");
}

// Stops at whitespace, quotes and angle brackets, so `href="…"` in an e-mail body yields the URL.
const LINK = /https?:\/\/[^\s"'<>]+/gi;
const TRAILING_PUNCTUATION = /[).,;:!?\]]+$/;

function linksIn(texts: readonly string[]): string[] {
  const links = texts.flatMap((t) =>
    [...t.matchAll(LINK)].map((m) => m[0].replace(TRAILING_PUNCTUATION, "")),
  );
  return [...new Set(links)];
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");
