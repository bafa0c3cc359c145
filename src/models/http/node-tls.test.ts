import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError } from "../errors.js";
import { postJson } from "./transport.js";

// A self-signed certificate for 127.0.0.1, ::1 and localhost, valid for a century: test-only.
const TLS_DIR = fileURLToPath(new URL("../../../test/fixtures/tls/", import.meta.url));
const CERT = join(TLS_DIR, "cert.pem");
const TRANSPORT = pathToFileURL(fileURLToPath(new URL("./transport.ts", import.meta.url))).href;
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer(
    { key: readFileSync(join(TLS_DIR, "key.pem")), cert: readFileSync(CERT) },
    (req, res) => {
      req.resume();
      req.on("end", () => {
        res.setHeader("content-type", "application/json");
        res.end('{"over":"tls"}');
      });
    },
  );
  // Far longer than the test may take: a socket that held the child open would time the test out.
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/things`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (target: string) => ({
  provider: "test",
  url: target,
  headers: {},
  body: { hello: 1 },
  signal: new AbortController().signal,
  observer: { onRequest: () => {} },
});

describe("the node:http transport over https", () => {
  it("a certificate the process does not trust is a NetworkError that names the problem, as under fetch, and is not retried", async () => {
    const retries: unknown[] = [];
    const error = await postJson(
      { ...call(url), observer: { onRequest: () => {}, onRetry: (info) => retries.push(info) } },
      { retry: { maxRetries: 2, initialDelayMs: 1 } },
    ).catch((e: unknown) => e);
    // The same certificate would be refused again: not retried.
    expect(retries).toEqual([]);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe("network");
    expect((error as NetworkError).message).toMatch(
      /the request to 127\.0\.0\.1:\d+ failed: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
    );
  });

  it("trusts a CA named in NODE_EXTRA_CA_CERTS, and the process exits with the keep-alive socket still open", async () => {
    const script = join(tmpdir(), `glassloop-tls-${process.pid}.mts`);
    writeFileSync(
      script,
      `import { postJson } from ${JSON.stringify(TRANSPORT)};
const reply = await postJson(${JSON.stringify(call(url))
        .replace('"signal":{}', '"signal":new AbortController().signal')
        .replace('"observer":{}', '"observer":{"onRequest":() => {}}')});
console.log(JSON.stringify(reply.body));
`,
    );
    const child = spawn(process.execPath, ["--import", TSX_LOADER, script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: CERT },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve)).finally(() =>
      rmSync(script, { force: true }),
    );
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out.trim()).toBe('{"over":"tls"}');
  }, 60_000);
});
