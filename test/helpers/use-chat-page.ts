import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const ROOT = fileURLToPath(new URL("../pages/use-chat/", import.meta.url));

/**
 * Bundles the `useChat` test page (test/pages/use-chat: the real `@ai-sdk/react` and `ai`) with
 * Vite into a fresh folder, built for the URL path `base`, and returns the folder.
 */
export async function buildUseChatPage(base: string): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), "glassloop-use-chat-"));
  await build({
    root: ROOT,
    base,
    configFile: false,
    // "error": swr's "use client" directive warns on every build, and means nothing outside React Server Components.
    logLevel: "error",
    // Production JSX even under vitest (NODE_ENV=test would pick jsxDEV, which React's production build lacks).
    mode: "production",
    oxc: { jsx: { runtime: "automatic", importSource: "react", development: false } },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    build: { outDir, emptyOutDir: true, target: "es2022", minify: false, sourcemap: false },
  });
  return outDir;
}
