import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startHarness, type Harness } from "../../../api/src/__tests__/service-harness";
import { svcctl } from "./harness";

// `svcctl broadcasts …` against an API on a port (docs/broadcasts.md "svcctl"). No worker runs:
// the test moves the broadcast to `completed` itself so `watch` has an end to reach.

let h: Harness;
let server: Server;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness("svcctl_broadcasts", { config: { channels: { email: { provider: "console" } } } });
  await h.prisma.template.create({ data: { key: "promo", locales: { en: { title: "Hi", body: "Sale" } } } });
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  env = { SVC_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, SVC_API_KEY: h.adminKey };
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

const CREATE = [
  "broadcasts",
  "create",
  "--name",
  "Sale",
  "-t",
  "promo",
  "--category",
  "marketing",
  "--channel",
  "email",
];

it("create, start, pause, a refused start (exit 1), list, then watch until it ends", async () => {
  const created = await svcctl([...CREATE, "-r", "ann,bob", "--rate", "5"], env);
  expect(created.code).toBe(0);
  const { id, status, total } = JSON.parse(created.stdout) as { id: string; status: string; total: number };
  expect({ status, total }).toEqual({ status: "draft", total: 2 });

  expect(JSON.parse((await svcctl(["broadcasts", "start", id], env)).stdout).status).toBe("running");
  expect(JSON.parse((await svcctl(["broadcasts", "pause", id], env)).stdout).status).toBe("paused");
  const refused = await svcctl(["broadcasts", "start", id], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("cannot start a broadcast that is paused");

  const listed = JSON.parse((await svcctl(["broadcasts", "list", "--status", "paused"], env)).stdout);
  expect(listed.items.map((b: { id: string }) => b.id)).toEqual([id]);

  await h.prisma.broadcast.update({ where: { id }, data: { status: "completed" } });
  const watched = await svcctl(["broadcasts", "watch", id], env);
  expect(watched).toMatchObject({ code: 0, stderr: "" });
  expect(watched.stdout).toBe("[------------------------------] 0/2 0% · completed\n");
  const asJson = await svcctl(["broadcasts", "watch", id, "--json"], env);
  expect(JSON.parse(asJson.stdout)).toMatchObject({ id, status: "completed" });
});

it("a filter audience, and exactly one audience option", async () => {
  const filtered = await svcctl([...CREATE, "--filter", '{"==": [{"var": "recipient.region"}, "DE"]}'], env);
  expect(JSON.parse(filtered.stdout)).toMatchObject({
    audience: { filter: { "==": [{ var: "recipient.region" }, "DE"] } },
  });
  const both = await svcctl([...CREATE, "-r", "ann", "--filter", "{}"], env);
  expect(both.code).toBe(2);
});
