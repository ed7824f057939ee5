// A small client for OpenAI-compatible chat completions (DECISIONS "Screening and AI": `ai.*`).
// It never throws: every failure becomes a reason, so callers can fall back.

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

export async function chatComplete(
  settings: AiSettings,
  messages: ChatMessage[],
  fetchImpl: typeof fetch = fetch,
): Promise<ChatOutcome> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let completion: ChatCompletion;
  try {
    const response = await fetchImpl(`${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: settings.model, messages, max_tokens: settings.maxTokens }),
      // One deadline for the whole exchange, body included.
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    if (!response.ok) return { ok: false, reason: `http ${response.status}` };
    completion = (await response.json()) as ChatCompletion;
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === "TimeoutError" || name === "AbortError") return { ok: false, reason: "timeout" };
    if (error instanceof SyntaxError) return { ok: false, reason: "invalid response" };
    return { ok: false, reason: "unavailable" };
  }
  const choice = completion?.choices?.[0];
  if (!choice) return { ok: false, reason: "invalid response" };
  if (choice.finish_reason === "length") return { ok: false, reason: "token budget exhausted" };
  if (choice.message?.refusal) return { ok: false, reason: "refused" };
  if (choice.finish_reason === "content_filter") return { ok: false, reason: "refused" };
  const text = choice.message?.content?.trim() ?? "";
  if (text === "") return { ok: false, reason: "empty answer" };
  return { ok: true, text };
}
