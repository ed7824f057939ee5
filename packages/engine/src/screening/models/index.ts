import type { SvcConfig } from "@svc/config";
import { httpScreeningModel } from "./http-model";
import { openAiScreeningModel } from "./openai-model";
import type { ScreeningModel } from "./screening-model";

export type { ScreeningModel } from "./screening-model";

/** The configured adapter (`screening.adapter`), keyed from the environment only. */
export function screeningModelFor(config: Pick<SvcConfig, "screening" | "secrets">): ScreeningModel {
  const { screening } = config;
  if (screening.url === null) throw new Error("screening.url is required when screening is enabled");
  const settings = {
    url: screening.url,
    model: screening.model,
    apiKey: config.secrets.screeningApiKey,
    timeoutMs: screening.timeout_ms,
  };
  if (screening.adapter === "openai") {
    if (screening.model === null) throw new Error("screening.model is required for the openai adapter");
    return openAiScreeningModel({ ...settings, model: screening.model });
  }
  return httpScreeningModel(settings);
}
