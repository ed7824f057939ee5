// Tests every network provider has, written once: each takes how to make the fake server answer
// and how to send, so the provider's own file keeps only its table of expected results.
import type { SendResult } from "../provider";
import { refusedOrigin } from "./fixtures";

/** One send per row, against a server that answers with the row's reply; each gives the row's result. */
export function itClassifies<TReply>(
  cases: [label: string, reply: TReply, expected: SendResult][],
  answerWith: (reply: TReply) => void,
  send: () => Promise<SendResult>,
): void {
  it.each(cases)("classifies %s", async (_label, reply, expected) => {
    answerWith(reply);
    await expect(send()).resolves.toEqual(expected);
  });
}

/** A server that never answers: the send gives up after timeout_ms and asks for a retry. */
export function itRetriesATimeout(options: {
  provider: string;
  timeoutMs: number;
  hang: () => void;
  send: (timeoutMs: number) => Promise<SendResult>;
}): void {
  const { provider, timeoutMs, hang, send } = options;
  it("retries a timeout", async () => {
    hang();
    await expect(send(timeoutMs)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: `${provider} timeout after ${timeoutMs} ms`,
    });
  });
}

/**
 * Nothing listens at the origin the send goes to: a retryable connection failure, named by its
 * category only (no ECONNREFUSED, address or port: docs/providers.md "How a send ends").
 */
export function itRetriesARefusedConnection(
  provider: string,
  send: (origin: string) => Promise<SendResult>,
): void {
  it("retries a refused connection", async () => {
    await expect(send(await refusedOrigin())).resolves.toEqual({
      ok: false,
      retryable: true,
      error: `${provider} connection failed`,
    });
  });
}
