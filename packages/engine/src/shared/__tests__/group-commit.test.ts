import { groupCommit } from "../group-commit";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A run that records its batches and holds each until released. */
function gatedRun() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const run = (batch: number[]) => {
    batches.push(batch);
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  return { run, batches, releaseAll: () => releases.splice(0).forEach((release) => release()) };
}

describe("groupCommit", () => {
  test("items added in one turn go as one batch on the next turn, not before", async () => {
    const { run, batches } = gatedRun();
    const add = groupCommit(run, { maxBatch: 10, maxInFlight: 1 });
    [1, 2, 3].forEach(add);
    expect(batches).toEqual([]);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3]]);
  });

  test("at most maxInFlight batches run; what arrives meanwhile waits and goes together", async () => {
    const { run, batches, releaseAll } = gatedRun();
    const add = groupCommit(run, { maxBatch: 2, maxInFlight: 2 });
    [1, 2, 3, 4, 5, 6, 7].forEach(add);
    await nextTurn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    add(8);
    await nextTurn();
    expect(batches).toHaveLength(2);
    releaseAll();
    await nextTurn();
    await nextTurn();
    expect(batches.slice(2)).toEqual([
      [5, 6],
      [7, 8],
    ]);
  });

  test("idle, lingerMs does not hold a lone item: it goes on the next turn", async () => {
    const { run, batches } = gatedRun();
    const add = groupCommit(run, { maxBatch: 3, maxInFlight: 2, lingerMs: 50 });
    add(1);
    await nextTurn();
    expect(batches).toEqual([[1]]);
  });

  test("busy, lingerMs holds a batch for company, then it goes with what arrived meanwhile", async () => {
    const { run, batches } = gatedRun();
    const add = groupCommit(run, { maxBatch: 3, maxInFlight: 2, lingerMs: 50 });
    add(1);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    add(2);
    await nextTurn();
    add(3);
    expect(batches).toEqual([[1]]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(batches).toEqual([[1], [2, 3]]);
  });
});
