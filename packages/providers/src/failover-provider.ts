// `providers: [a, b]`: try each in turn while they fail retryably; the first to accept wins
// (docs/providers.md, "How a send ends"). A permanent failure ends the attempt: another provider
// would refuse the same address or content too.
import type { Provider, SendFailure, SendRequest, SendResult } from "./provider";

export class FailoverProvider implements Provider {
  readonly name: string;

  constructor(readonly providers: readonly Provider[]) {
    if (providers.length === 0) throw new Error("FailoverProvider needs at least one provider");
    this.name = providers.map((provider) => provider.name).join(",");
  }

  async send(request: SendRequest): Promise<SendResult> {
    const failures: SendFailure[] = [];
    for (const provider of this.providers) {
      const result = await provider.send(request);
      if (result.ok || !result.retryable) return { ...result, provider: provider.name };
      failures.push(result);
    }
    return combineRetryable(failures, this.providers[this.providers.length - 1]?.name);
  }

  async close(): Promise<void> {
    await Promise.all(this.providers.map((provider) => provider.close?.()));
  }
}

// Every provider asked for patience: one error listing them all, retried once the soonest of them
// may be ready (a provider that named no wait may be ready at once, so then no wait is given).
function combineRetryable(failures: SendFailure[], lastProvider: string | undefined): SendFailure {
  const waits = failures.map((failure) => failure.retryAfterMs);
  const combined: SendFailure = {
    ok: false,
    retryable: true,
    error: failures.map((failure) => failure.error).join("; "),
  };
  if (waits.every((wait): wait is number => wait !== undefined)) combined.retryAfterMs = Math.min(...waits);
  if (lastProvider !== undefined) combined.provider = lastProvider;
  return combined;
}
