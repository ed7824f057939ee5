import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { enqueueFollowUps } from "../../ingest/follow-ups";
import {
  baseRequest,
  compose,
  makeAgent,
  makeRecipient,
  makeTemplate,
  NOW,
  testConfig,
} from "./compose-fixtures";

// docs/screening.md "How it runs": with screening on, an agent's message the policy queues for now
// is written waiting for its verdict (`sending`, no lease) and its follow-up is a `screen-message`
// job, not a delivery whose only work would be the hand-over. Everything else is written as before.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("compose_waiting_screening");
});
afterAll(() => db.drop());

const screeningOn = testConfig({ screening: { enabled: true, url: "http://127.0.0.1:9/screen" } });

async function agentRequest(overrides: Parameters<typeof baseRequest>[2] = {}) {
  const recipient = await makeRecipient(db.prisma);
  const template = await makeTemplate(db.prisma);
  const agent = await makeAgent(db.prisma);
  return baseRequest(recipient.id, template.key, { sender: agent.key, agentKey: agent.key, ...overrides });
}

test("an agent's message due now is written waiting for screening", async () => {
  const { message } = await compose(db.prisma, await agentRequest(), { config: screeningOn });
  expect(message).toMatchObject({ status: "sending", lease_until: null, generation: 0, screening: null });
  const stored = await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(stored).toMatchObject({ status: "sending", lease_until: null, generation: 0 });
});

test.each([
  ["screening off", async () => ({ request: await agentRequest(), config: testConfig() })],
  [
    "a backend's message",
    async () => ({
      request: { ...(await agentRequest()), sender: "backend", agentKey: null },
      config: screeningOn,
    }),
  ],
  ["a dry run", async () => ({ request: await agentRequest({ dryRun: true }), config: screeningOn })],
])("%s stays queued", async (_name, setUp) => {
  const { request, config } = await setUp();
  const { message } = await compose(db.prisma, request, { config });
  expect(message).toMatchObject({ status: "queued", lease_until: null });
});

test("a message due later stays queued: it is handed over when its delivery comes", async () => {
  const later = new Date(NOW.getTime() + 3_600_000);
  const { message } = await compose(db.prisma, await agentRequest({ dueAt: later }), { config: screeningOn });
  expect(message).toMatchObject({ status: "queued", send_at: later });
});

test("the follow-ups of a waiting message are its screening job, no delivery", async () => {
  const added: { name: string; payload: unknown }[] = [];
  await enqueueFollowUps(
    {
      enqueueBulk: async (items) => {
        added.push(...items.map((i) => ({ name: i.name, payload: i.payload })));
        return items.map(() => "id");
      },
    },
    {
      deliveries: [],
      screenings: [{ messageId: "msg_A", generation: 0 }],
      digests: [],
      notices: [],
    },
    NOW,
  );
  expect(added).toEqual([{ name: "screen-message", payload: { messageId: "msg_A", generation: 0 } }]);
});
