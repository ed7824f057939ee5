import { microBatcher } from "../micro-batch";

describe("microBatcher", () => {
  test("calls made together go out as one batch, results in order; later calls wait for the flight", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = microBatcher(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await gate;
      return items.map((n) => n * 10);
    });
    const first = [1, 2, 3].map((n) => batcher.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    const second = [4, 5].map((n) => batcher.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2, 3]]);
    release();
    expect(await Promise.all([...first, ...second])).toEqual([10, 20, 30, 40, 50]);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  test("batches are cut at maxBatch", async () => {
    const sizes: number[] = [];
    const batcher = microBatcher(async (items: number[]) => (sizes.push(items.length), items), 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batcher.add(n)));
    expect(sizes).toEqual([2, 2, 1]);
  });

  test("a failed batch is retried item by item: only the bad item fails", async () => {
    const calls: number[][] = [];
    const batcher = microBatcher(async (items: number[]) => {
      calls.push(items);
      if (items.includes(2)) throw new Error("row 2 is gone");
      return items;
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => batcher.add(n)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([
      1,
      "row 2 is gone",
      3,
    ]);
    expect(calls).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});
