import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

/** Builds the chat page into dist/chat: static files `glassloop serve` serves at `/`, no CDN. */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  // Relative asset paths: the page works wherever the handler is mounted, not only at `/`.
  base: "./",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/chat", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
});
