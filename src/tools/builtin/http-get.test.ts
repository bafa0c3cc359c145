import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ToolError } from "glassloop";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool } from "../../../test/helpers/run-tool.js";
import { type HttpGetOptions, httpGetTool } from "./http-get.js";
import { isPrivateAddress, type Resolver } from "./net-guard.js";

interface Loopback {
  server: Server;
  port: number;
  hits: { method: string; url: string }[];
}

/** A loopback server whose answers are picked by path. */
async function loopback(): Promise<Loopback> {
  const hits: Loopback["hits"] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? "", url: req.url ?? "" });
    const path = req.url ?? "/";
    if (path === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ city: "Beijing", temp_c: 22 }));
    } else if (path.startsWith("/redirect?to=")) {
      res.writeHead(302, { location: decodeURIComponent(path.slice("/redirect?to=".length)) });
      res.end();
    } else if (path === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("a".repeat(300_000));
    } else if (path === "/png") {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    } else if (path === "/hang") {
      // Never answers.
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let a: Loopback;
let b: Loopback;
beforeAll(async () => {
  a = await loopback();
  b = await loopback();
});
afterAll(() => {
  for (const s of [a, b]) {
    s.server.closeAllConnections();
    s.server.close();
  }
});

/** Names under `.test` resolve to whatever this table says; nothing leaves the machine. */
const fakeDns =
  (table: Record<string, string>): Resolver =>
  (hostname, callback) => {
    const address = table[hostname];
    if (!address) return callback(Object.assign(new Error("not found"), { code: "ENOTFOUND" }), []);
    callback(null, [{ address, family: address.includes(":") ? 6 : 4 }]);
  };

const get = (url: string, options: HttpGetOptions = {}) => runTool(httpGetTool(options), { url });

describe("http_get: SSRF guard", () => {
  it.each([
    (p: number) => `http://127.0.0.1:${p}/json`,
    (p: number) => `http://[::1]:${p}/json`,
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/json`,
    (p: number) => `http://2130706433:${p}/json`,
    (p: number) => `http://0x7f.1:${p}/json`,
    (p: number) => `http://0.0.0.0:${p}/json`,
    () => "http://169.254.169.254/latest/meta-data/",
    () => "http://10.0.0.1/",
    () => "http://192.168.1.1/",
    () => "http://[fe80::1]/",
  ])("refuses a private address literal: %s", async (url) => {
    const target = url(a.port);
    const before = a.hits.length;
    await expect(get(target)).rejects.toThrow(/Refused: .* loopback, private or link-local/);
    expect(a.hits.length).toBe(before);
  });

  it("refuses a name that resolves to loopback (after DNS), without connecting", async () => {
    const before = a.hits.length;
    await expect(get(`http://localhost:${a.port}/json`)).rejects.toThrow(/Refused: localhost resolves to/);
    await expect(
      get(`http://inside.test:${a.port}/json`, { resolver: fakeDns({ "inside.test": "10.1.2.3" }) }),
    ).rejects.toThrow(/Refused: inside\.test resolves to 10\.1\.2\.3/);
    expect(a.hits.length).toBe(before);
  });

  it("fetches from a private address only when that host is allowed", async () => {
    const allowed = { allowedHosts: [`127.0.0.1:${a.port}`] };
    expect(await get(`http://127.0.0.1:${a.port}/json`, allowed)).toEqual({
      url: `http://127.0.0.1:${a.port}/json`,
      status: 200,
      contentType: "application/json",
      body: '{"city":"Beijing","temp_c":22}',
    });
    expect(a.hits.at(-1)).toEqual({ method: "GET", url: "/json" });
    // Same host, other port: not allowed.
    await expect(get(`http://127.0.0.1:${b.port}/json`, allowed)).rejects.toThrow(/Refused/);
  });

  it("checks every redirect hop: to another private host, to a name resolving privately, to other schemes", async () => {
    const allowed = {
      allowedHosts: [`127.0.0.1:${a.port}`, `named.test:${a.port}`],
      resolver: fakeDns({ "named.test": "127.0.0.1", "evil.test": "127.0.0.1", localhost: "127.0.0.1" }),
    };
    const via = (to: string) => `http://127.0.0.1:${a.port}/redirect?to=${encodeURIComponent(to)}`;
    const before = b.hits.length;
    await expect(get(via(`http://127.0.0.1:${b.port}/json`), allowed)).rejects.toThrow(/Refused/);
    await expect(get(via(`http://evil.test:${b.port}/json`), allowed)).rejects.toThrow(
      /evil\.test resolves to 127/,
    );
    await expect(get(via(`http://localhost:${b.port}/json`), allowed)).rejects.toThrow(/Refused: localhost/);
    await expect(get(via("file:///etc/passwd"), allowed)).rejects.toThrow(/only http and https/);
    expect(b.hits.length).toBe(before);
    // A redirect to an allowed host is followed.
    const followed = await get(via(`http://named.test:${a.port}/json`), allowed);
    expect(followed.url).toBe(`http://named.test:${a.port}/json`);
    expect(followed.status).toBe(200);
  });

  it("stops after too many redirects", async () => {
    let url = `http://127.0.0.1:${a.port}/json`;
    for (let i = 0; i < 4; i++) url = `http://127.0.0.1:${a.port}/redirect?to=${encodeURIComponent(url)}`;
    await expect(get(url, { allowPrivateNetworks: true, maxRedirects: 2 })).rejects.toThrow(
      /Too many redirects/,
    );
  });

  it("classifies addresses", () => {
    for (const ip of [
      "127.0.0.1",
      "10.9.9.9",
      "172.20.0.1",
      "192.168.0.10",
      "169.254.1.1",
      "100.64.0.1",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
      "0.0.0.0",
      "224.0.0.1",
    ]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "172.32.0.1"]) {
      expect(isPrivateAddress(ip), ip).toBe(false);
    }
  });
});

describe("http_get: caps and content", () => {
  const open = { allowPrivateNetworks: true };

  it("cuts a large body at maxBytes with a marker", async () => {
    const result = await get(`http://127.0.0.1:${a.port}/big`, { ...open, maxBytes: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.body).toBe(`${"a".repeat(1000)}\n[truncated after 1000 bytes]`);
  });

  it("gives up after timeoutMs", async () => {
    const started = Date.now();
    const error = await get(`http://127.0.0.1:${a.port}/hang`, { ...open, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/Timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("refuses binary content types and reports HTTP errors as results", async () => {
    await expect(get(`http://127.0.0.1:${a.port}/png`, open)).rejects.toThrow(/image\/png, not text or JSON/);
    expect(await get(`http://127.0.0.1:${a.port}/missing`, open)).toMatchObject({
      status: 404,
      body: "not here",
    });
  });

  it("refuses what is not a URL and URLs with credentials", async () => {
    await expect(get("not a url")).rejects.toThrow(/Not a valid URL/);
    await expect(get("ftp://example.com/")).rejects.toThrow(/only http and https/);
    await expect(get("http://user:pw@example.com/")).rejects.toThrow(/credentials/);
  });
});
