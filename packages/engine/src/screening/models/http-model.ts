import { parseScreeningAnswer } from "@svc/core";
import { postJson } from "../../shared/post-json";
import { failedReply, malformedReply, type ModelSettings, type ScreeningModel } from "./screening-model";

// The `http` adapter (docs/screening.md "The http adapter"): one POST of
// `{model, sender, category, importance, content}` to `screening.url`; the answer is
// `{urgency: {low, normal, high, critical}, pressure, deception, secret}`, all probabilities.

export function httpScreeningModel(settings: ModelSettings): ScreeningModel {
  return {
    async ask(input) {
      const posted = await postJson(
        settings.url,
        { model: settings.model, ...input },
        {
          apiKey: settings.apiKey,
          signal: AbortSignal.timeout(settings.timeoutMs),
        },
      );
      if (!posted.ok) return failedReply(posted);
      const parsed = parseScreeningAnswer(posted.json);
      if (!parsed.ok) return malformedReply(parsed.error);
      const named = (posted.json as { model?: unknown }).model;
      return {
        ok: true,
        answer: parsed.answer,
        model: settings.model ?? (typeof named === "string" ? named : null),
      };
    },
  };
}
