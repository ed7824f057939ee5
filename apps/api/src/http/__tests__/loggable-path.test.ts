import { maskPath } from "../loggable-path";

describe("maskPath", () => {
  it.each([
    ["/v1/messages/msg_01JD3ZK4Q2X8V7N6M5B4C3A2Z1", "/v1/messages/msg_01JD3ZK4Q2X8V7N6M5B4C3A2Z1"],
    ["/v1/recipients/alice%40example.com/preferences", "/v1/recipients/alice%40example.com/preferences"],
    ["/v1/track/Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2", "/v1/track/[REDACTED]"],
    [
      "/preferences/Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2/unsubscribe",
      "/preferences/[REDACTED]/unsubscribe",
    ],
    ["/review/Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2", "/review/[REDACTED]"],
    ["/review/Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2/reject", "/review/[REDACTED]/reject"],
    ["/", "/"],
  ])("%s", (path, expected) => {
    expect(maskPath(path)).toBe(expected);
  });
});
