import { EventEmitter } from "node:events";
import { exitGracefullyOnSignals } from "../shutdown";

function setup(close: () => Promise<void>) {
  const source = new EventEmitter();
  const exits: number[] = [];
  const logs: string[] = [];
  const log = (message: string) => logs.push(message);
  exitGracefullyOnSignals({
    close,
    source,
    exit: (code) => exits.push(code),
    logger: { info: log, warn: log, error: log },
  });
  return { source, exits, logs };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("exitGracefullyOnSignals", () => {
  it.each(["SIGTERM", "SIGINT"])("%s closes first, then exits 0", async (signal) => {
    let release!: () => void;
    const { source, exits } = setup(() => new Promise<void>((resolve) => (release = resolve)));
    source.emit(signal);
    await tick();
    expect(exits).toEqual([]);
    release();
    await tick();
    expect(exits).toEqual([0]);
  });

  it("a second signal exits 1 at once while closing is still under way", async () => {
    const { source, exits, logs } = setup(() => new Promise<void>(() => undefined));
    source.emit("SIGTERM");
    source.emit("SIGINT");
    expect(exits).toEqual([1]);
    expect(logs).toEqual([
      "shutting down, waiting for active jobs",
      "second signal, exiting without waiting for active jobs",
    ]);
  });

  it("a failing close exits 1", async () => {
    const { source, exits } = setup(() => Promise.reject(new Error("redis gone")));
    source.emit("SIGTERM");
    await tick();
    expect(exits).toEqual([1]);
  });
});
