import { formatTable } from "../format-table";
import { describeDatabase, describeRedis } from "../targets";

describe("formatTable", () => {
  it("pads every column but the last to its widest cell", () => {
    expect(
      formatTable([
        ["ID", "NAME", "X"],
        ["key_1", "a", "long value"],
        ["k", "bb", "-"],
      ]),
    ).toEqual(["ID     NAME  X", "key_1  a     long value", "k      bb    -"]);
  });
});

describe("describeDatabase / describeRedis", () => {
  it.each([
    [
      describeDatabase("postgresql://svc:s3cret@db.internal:6543/svc_prod?sslmode=require"),
      "db.internal:6543/svc_prod",
    ],
    [describeDatabase("postgresql://postgres@127.0.0.1/svc"), "127.0.0.1:5432/svc"],
    [describeRedis({ url: "redis://:hunter2@cache:6380/2" }), "cache:6380/2"],
    [
      describeRedis({ url: "redis://x", cluster: { nodes: ["redis://:pw@a:7000", "redis://b:7001"] } }),
      "the Redis Cluster at a:7000 (+1 seeds)",
    ],
    [
      describeRedis({
        url: "redis://x",
        sentinel: { name: "main", nodes: ["redis://:pw@s1:26379", "redis://s2"] },
      }),
      'the primary "main" of the sentinels at s1:26379, s2:26379',
    ],
    [describeRedis({ url: "rediss://default:pw@cache.example.com" }), "cache.example.com:6379"],
    [describeRedis({ url: "not a url" }), "(unparsable URL)"],
  ])("%s", (described, expected) => {
    expect(described).toBe(expected);
    expect(described).not.toMatch(/s3cret|hunter2|pw/);
  });
});
