import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve } from "node:path";
import { GlassloopError } from "../core/errors.js";
import { packageRoot } from "../core/package-root.js";
import { isInside } from "../core/read-caps.js";
import { type RedactionOptions, Redactor } from "../core/redact.js";
import { DEFAULT_EVAL_DIR, listResults, resultTraceFiles } from "../evals/result-file.js";
import { listRuns, readTraceFile, traceFiles } from "./reader.js";
import type { RunView } from "./run-view.js";
import { DEFAULT_TRACE_DIR } from "./writer.js";

/** The viewer's page was not built (`npm run build:viewer`), so there is nothing to serve. */
export class ViewerNotBuiltError extends GlassloopError {
  constructor(looked: string[]) {
    super(
      "viewer_not_built",
      `The trace viewer's page is not built (looked in ${looked.join(", ")}). Run "npm run build:viewer" in the glassloop package.`,
    );
  }
}

/** Options of the local trace viewer. */
export interface ViewerOptions {
  /** Directory of per-run traces (default `.glassloop/traces`). */
  dir?: string;
  /** Extra trace files to show (e.g. a `--trace` file). */
  files?: readonly string[];
  /** Port on 127.0.0.1 (default 0: a free one). */
  port?: number;
  /** Where the built page lives (default: found next to this module). */
  assetsDir?: string;
  /** Scrubbed again from everything served, on top of what the writer scrubbed. */
  redaction?: RedactionOptions;
  /** Directory of eval results (default `.glassloop/evals`): the eval pages and their trials' runs. */
  evalDir?: string;
}

/** A running viewer. */
export interface ViewerServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** The page of one run. */
  runUrl(runId: string): string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
  ".ico": "image/x-icon",
  ".png": "image/png",
};

// The page loads nothing from anywhere but this server: it works offline and cannot leak.
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Where the built page is: the package's `dist/viewer` (the same from sources and bundles). */
export function findViewerAssets(): string {
  const candidates = [join(packageRoot(), "dist", "viewer")];
  const found = candidates.find((dir) => existsSync(join(dir, "index.html")));
  if (!found) throw new ViewerNotBuiltError(candidates);
  return found;
}

/**
 * Starts the trace viewer on 127.0.0.1: the built page plus a small JSON API over the trace files,
 * read afresh on each request so a run in progress shows as it grows.
 */
export async function startViewer(options: ViewerOptions = {}): Promise<ViewerServer> {
  const assets = resolve(options.assetsDir ?? findViewerAssets());
  if (!existsSync(join(assets, "index.html"))) throw new ViewerNotBuiltError([assets]);
  const redactor = new Redactor(options.redaction);
  // Files the user named are trusted as named; files found in the folder are regular files
  // (traceFiles) opened without following a symlink planted since (readOptions).
  const named = new Set((options.files ?? []).map((f) => resolve(f)));
  const evals = () => listResults(options.evalDir ?? DEFAULT_EVAL_DIR);
  const files = () => [
    ...new Set([
      ...named,
      ...traceFiles(options.dir ?? DEFAULT_TRACE_DIR),
      ...resultTraceFiles(evals().loaded),
    ]),
  ];
  const readOptions = (file: string) => ({ noFollow: !named.has(file) });
  let port = 0;
  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      // A message could carry a path or bytes of a file; the details stay on this side.
      send(res, 500, { error: "internal error" });
    }
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    // Another site must not read traces through this server by pointing a name at 127.0.0.1.
    const host = req.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      send(res, 421, { error: "unexpected Host header" });
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, { error: "read-only" });
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      send(res, 400, { error: "bad percent-encoding in the path" });
      return;
    }
    if (path === "/api/runs") {
      const { runs, skipped } = listRuns(files(), readOptions);
      send(res, 200, redactor.value({ runs, skipped }));
      return;
    }
    if (path.startsWith("/api/runs/")) {
      const run = findById(path.slice("/api/runs/".length));
      if (run) send(res, 200, redactor.value(run));
      else send(res, 404, { error: "no such run" });
      return;
    }
    if (path === "/api/evals") {
      const { evals: listed, skipped } = evals();
      send(res, 200, redactor.value({ evals: listed, skipped }));
      return;
    }
    if (path.startsWith("/api/evals/")) {
      const found = evals().loaded.find((l) => l.result.id === path.slice("/api/evals/".length));
      if (found) send(res, 200, redactor.value({ ...found.result, file: found.path }));
      else send(res, 404, { error: "no such eval" });
      return;
    }
    serveAsset(path === "/" ? "/index.html" : path, res);
  }

  function findById(runId: string): (RunView & { file: string }) | undefined {
    for (const file of files()) {
      try {
        const run = readTraceFile(file, readOptions(file)).runs.find((r) => r.runId === runId);
        if (run) return { ...run, file };
      } catch {
        // An unreadable file is listed under "skipped" by /api/runs; here it just has no run.
      }
    }
    return undefined;
  }

  function serveAsset(path: string, res: ServerResponse): void {
    const full = resolve(assets, `.${path}`);
    if (!isInside(assets, full) || full === assets || !existsSync(full) || !statSync(full).isFile()) {
      send(res, 404, { error: "not found" });
      return;
    }
    const type = TYPES[extname(full)] ?? "application/octet-stream";
    const body = readFileSync(full);
    res.writeHead(200, { ...SECURITY_HEADERS, "content-type": type, "content-length": body.length });
    res.end(body);
  }

  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", () => done());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    port,
    runUrl: (runId) => `${url}#/run/${encodeURIComponent(runId)}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}
