// A small client for OpenAI-compatible chat completions (`ai.*`, docs/digests.md).
// It never throws: every failure becomes a reason, so callers can fall back.
import { postJson } from "../shared/post-json";

export interface AiSettings {
  baseUrl: string;
  model: string;
  /** SVC_AI_API_KEY; sent as a Bearer token when set. */
  apiKey: string | null;
  timeoutMs: number;
  maxTokens: number;
}

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

export type ChatOutcome = { ok: true; text: string } | { ok: false; reason: string };

interface ChatCompletion {
  choices?: {
    finish_reason?: string | null;
    message?: { content?: string | null; refusal?: string | null };
  }[];
}

export async function chatComplete(settings: AiSettings, messages: ChatMessage[]): Promise<ChatOutcome> {
  const posted = await postJson(
    `${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`,
    { model: settings.model, messages, max_tokens: settings.maxTokens },
    { apiKey: settings.apiKey, signal: AbortSignal.timeout(settings.timeoutMs) },
  );
  if (!posted.ok) return { ok: false, reason: posted.kind === "network" ? "unavailable" : posted.error };
  const completion = posted.json as ChatCompletion | null;
  const choice = completion?.choices?.[0];
  if (!choice) return { ok: false, reason: "invalid response" };
  if (choice.finish_reason === "length") return { ok: false, reason: "token budget exhausted" };
  if (choice.message?.refusal) return { ok: false, reason: "refused" };
  if (choice.finish_reason === "content_filter") return { ok: false, reason: "refused" };
  const text = choice.message?.content?.trim() ?? "";
  if (text === "") return { ok: false, reason: "empty answer" };
  return { ok: true, text };
}
