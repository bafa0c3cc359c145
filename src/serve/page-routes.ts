/** The chat page (`dist/chat`) at `/` and the trace viewer (`dist/viewer`) at `/trace/`: static files only. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import type { Hono } from "hono";
import { packageRoot } from "../core/package-root.js";
import { ServeRequestError } from "./errors.js";
import type { ServeEnv } from "./serve-context.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json; charset=utf-8",
  ".ico": "image/x-icon",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** Headers of every page file: the page loads nothing from anywhere else and runs no inline script. */
export const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** Where the built pages are: `dist/chat` and `dist/viewer` of the package, unless given. */
export interface PageDirs {
  chat?: string;
  viewer?: string;
}

/** Mounts the static routes (after every API route). */
export function pageRoutes(app: Hono<ServeEnv>, dirs: PageDirs = {}): void {
  const chat = resolve(dirs.chat ?? join(packageRoot(), "dist", "chat"));
  const viewer = resolve(dirs.viewer ?? join(packageRoot(), "dist", "viewer"));
  app.get("/trace", (c) => c.redirect("/trace/", 301));
  app.get("/trace/*", (c) => serveFile(viewer, c.req.path.slice("/trace".length), "trace viewer"));
  app.get("/*", (c) => serveFile(chat, c.req.path, "chat page"));
}

function serveFile(root: string, urlPath: string, what: string): Response {
  if (!existsSync(join(root, "index.html")))
    throw new ServeRequestError(
      503,
      "page_not_built",
      `the ${what} is not built: run "npm run build" in the glassloop package`,
    );
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    throw new ServeRequestError(404, "not_found", "no such file");
  }
  if (path === "/" || path === "") path = "/index.html";
  const file = resolve(root, `.${path}`);
  // Only files inside the page's folder: no `..`, no absolute paths, no directories.
  if (!(file === root || file.startsWith(root + sep)) || path.includes("\0"))
    throw new ServeRequestError(404, "not_found", "no such file");
  if (!existsSync(file) || !statSync(file).isFile())
    throw new ServeRequestError(404, "not_found", "no such file");
  const type = TYPES[extname(file)] ?? "application/octet-stream";
  return new Response(readFileSync(file), {
    headers: {
      "content-type": type,
      "cache-control": path === "/index.html" ? "no-store" : "public, max-age=3600",
      ...PAGE_HEADERS,
    },
  });
}
