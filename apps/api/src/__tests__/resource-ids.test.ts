import { startHarness, type Harness } from "./service-harness";

// Resource ids in paths are checked by the OpenAPI document (ResourceId) before any lookup: an id
// Postgres could not even compare (`\u0000`) or that svc never mints is 422, not a 500; a well-formed
// id that names nothing is still 404. Found by a malformed-input sweep over every documented path.

let h: Harness;

beforeAll(async () => {
  h = await startHarness("resource_ids");
});
afterAll(() => h.close());

const ROUTES: [method: "get" | "post", template: string][] = [
  ["get", "/v1/messages/{id}"],
  ["post", "/v1/messages/{id}/cancel"],
  ["get", "/v1/digests/{id}"],
  ["post", "/v1/digests/{id}/send"],
  ["get", "/v1/api-keys/{id}"],
  ["post", "/v1/api-keys/{id}/revoke"],
];

it.each(ROUTES)(
  "%s %s: a NUL or a character svc never mints is 422; an unknown id is 404",
  async (method, template) => {
    const path = (id: string) => template.replace("{id}", id);
    for (const bad of ["%00", "a%00b", "a%07b", "a.b", "a%20b"]) {
      const res = await h.as()[method](path(bad)).send({}).expect(422);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toBe(
        'Request validation failed: path.id: must match pattern "^[A-Za-z0-9_]+$"',
      );
      expect(res.body.errors).toEqual([
        { loc: ["path", "id"], msg: 'must match pattern "^[A-Za-z0-9_]+$"', type: "pattern" },
      ]);
    }
    await h.as()[method](path("msg_01J000000000000000000000ZZ")).send({}).expect(404);
  },
);
