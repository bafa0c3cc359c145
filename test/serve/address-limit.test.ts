import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, startServer } from "../../src/serve/index.js";
import { FunctionModel } from "../../src/testing.js";
import { ALICE, BOB, type Served, serve } from "./harness.js";

const echo = () => ({ model: new FunctionModel(() => ({ text: "hi" })) });

let served: Served | undefined;
let server: NodeServer | undefined;
afterEach(async () => {
  await server?.close();
  await served?.close();
  served = undefined;
  server = undefined;
});

describe("a per-address limit, before the token is checked", () => {
  it("answers 429 to an address past its limit, bad token or good, while other addresses go on", async () => {
    served = serve({
      agents: { echo },
      limits: { requestsPerMinutePerAddress: 5 },
      clientAddress: (request) => request.headers.get("x-test-address") ?? undefined,
    });
    const me = (address: string, token: string) =>
      (served as Served).fetch("/api/me", {
        headers: { "x-test-address": address, authorization: `Bearer ${token}` },
      });
    const guesses = [];
    for (let i = 0; i < 5; i++) guesses.push((await me("203.0.113.7", `wrong-token-${i}-0123456789`)).status);
    expect(guesses).toEqual([401, 401, 401, 401, 401]);
    // The sixth request is refused before its (valid) token is read.
    const sixth = await me("203.0.113.7", ALICE);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await sixth.json()) as { code: string }).code).toBe("rate_limited");
    // The login route (where tokens are tried) is behind the same limit.
    const login = await (served as Served).fetch("/api/login", {
      method: "POST",
      headers: { "x-test-address": "203.0.113.7", authorization: `Bearer ${ALICE}` },
    });
    expect(login.status).toBe(429);
    expect((await me("198.51.100.2", BOB)).status).toBe(200);
  });

  it("under startServer the address is the socket's, with no option needed", async () => {
    served = serve({ agents: { echo }, limits: { requestsPerMinutePerAddress: 3 } });
    server = await startServer({ handler: served.handler });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await fetch(`${server.url}api/me`, { headers: { authorization: "Bearer nope-0123456789abcdef" } }))
          .status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
