import http from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { request, type Dispatcher } from "undici";
import { createGuardedDispatcher } from "../guarded-dispatcher";
import {
  isOutboundAddressRefused,
  OUTBOUND_ADDRESS_REFUSED,
  OutboundAddressRefusedError,
} from "../outbound-errors";

// Only loopback is ever connected to here: every refused case names a loopback or other internal
// address, so a broken guard would reach the local test server, never another network.

let server: http.Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end("reached"));
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => (connections = 0));

const dispatchers: Dispatcher[] = [];
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.close()));
});
function guarded(options: Parameters<typeof createGuardedDispatcher>[0]): Dispatcher {
  const dispatcher = createGuardedDispatcher(options);
  dispatchers.push(dispatcher);
  return dispatcher;
}

/** A resolver that answers every name with `addresses` and counts how often it was asked. */
function fixedResolver(addresses: { address: string; family: 4 | 6 }[]) {
  const calls: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    calls.push(hostname);
    setImmediate(() => {
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as unknown as LookupFunction;
  return { lookup, calls };
}

async function get(url: string, dispatcher: Dispatcher): Promise<string> {
  const response = await request(url, { dispatcher });
  return response.body.text();
}

async function refusal(url: string, dispatcher: Dispatcher): Promise<unknown> {
  return get(url, dispatcher).then(
    () => {
      throw new Error(`${url} was reached`);
    },
    (error: unknown) => error,
  );
}

describe("createGuardedDispatcher({ allowPrivate: false })", () => {
  it.each([
    ["an IPv4 literal", () => `http://127.0.0.1:${port}/x`],
    ["0.0.0.0 (which reaches this host)", () => `http://0.0.0.0:${port}/x`],
    ["an IPv4-mapped IPv6 literal", () => `http://[::ffff:127.0.0.1]:${port}/x`],
    ["an IPv6 loopback literal", () => `http://[::1]:${port}/x`],
    ["a decimal IPv4 form", () => `http://2130706433:${port}/x`],
    ["a name that resolves to loopback", () => `http://localhost:${port}/x`],
  ])("refuses %s without opening a connection", async (_what, url) => {
    const error = await refusal(url(), guarded({ allowPrivate: false }));
    expect(error).toBeInstanceOf(OutboundAddressRefusedError);
    expect((error as OutboundAddressRefusedError).code).toBe(OUTBOUND_ADDRESS_REFUSED);
    expect(isOutboundAddressRefused(error)).toBe(true);
    expect(connections).toBe(0);
  });

  it("checks the resolved address at every connect, so a name that rebinds inside is refused", async () => {
    // The name is public-looking; what counts is what it resolves to at the moment of connecting.
    const resolver = fixedResolver([{ address: "127.0.0.1", family: 4 }]);
    const dispatcher = guarded({ allowPrivate: false, lookup: resolver.lookup });
    for (let i = 0; i < 3; i++) {
      expect(await refusal(`http://push.rebind.example:${port}/x`, dispatcher)).toBeInstanceOf(
        OutboundAddressRefusedError,
      );
    }
    expect(resolver.calls).toEqual(["push.rebind.example", "push.rebind.example", "push.rebind.example"]);
    expect(connections).toBe(0);
  });

  it("refuses a name that resolves to a mix of internal and global addresses", async () => {
    const resolver = fixedResolver([
      { address: "127.0.0.1", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
    const error = await refusal(
      `http://mixed.example:${port}/x`,
      guarded({ allowPrivate: false, lookup: resolver.lookup }),
    );
    expect(error).toBeInstanceOf(OutboundAddressRefusedError);
    expect((error as OutboundAddressRefusedError).address).toBe("127.0.0.1");
    expect(connections).toBe(0);
  });

  it("passes resolver errors through unchanged (an unknown name is not a refusal)", async () => {
    const lookup = ((_h: string, _o: unknown, callback: (e: Error) => void) =>
      setImmediate(() =>
        callback(Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" })),
      )) as unknown as LookupFunction;
    const error = await refusal(`http://nowhere.example:${port}/x`, guarded({ allowPrivate: false, lookup }));
    expect(isOutboundAddressRefused(error)).toBe(false);
    expect((error as { code?: string }).code).toBe("ENOTFOUND");
  });
});

describe("createGuardedDispatcher({ allowPrivate: true })", () => {
  it("reaches loopback (local development)", async () => {
    await expect(get(`http://127.0.0.1:${port}/x`, guarded({ allowPrivate: true }))).resolves.toBe("reached");
    expect(connections).toBe(1);
  });

  it("connects to the address its resolver gave", async () => {
    const resolver = fixedResolver([{ address: "127.0.0.1", family: 4 }]);
    const dispatcher = guarded({ allowPrivate: true, lookup: resolver.lookup });
    await expect(get(`http://dev-push.example:${port}/x`, dispatcher)).resolves.toBe("reached");
    expect(resolver.calls).toEqual(["dev-push.example"]);
  });
});
