import { waitFor } from "../wait-for";

describe("waitFor", () => {
  it("resolves with the first value that is not undefined, null or false", async () => {
    const answers = [undefined, null, false, 0];
    expect(await waitFor(() => answers.shift(), { intervalMs: 1 })).toBe(0);
  });

  it("treats a throw as not yet", async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls++;
        if (calls < 3) throw new Error("not ready");
        return "ready";
      },
      { intervalMs: 1 },
    );
    expect({ value, calls }).toEqual({ value: "ready", calls: 3 });
  });

  it("times out naming the condition and the last error", async () => {
    const error = (await waitFor(
      () => {
        throw new Error("still 0");
      },
      { timeoutMs: 50, intervalMs: 5, what: "counter reaches 1" },
    ).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe("waitFor: counter reaches 1 not met within 50 ms: still 0");
    expect((error.cause as Error).message).toBe("still 0");
  });

  it("awaits async conditions", async () => {
    const start = Date.now();
    expect(await waitFor(async () => Date.now() - start >= 30 && "done", { intervalMs: 5 })).toBe("done");
  });
});
