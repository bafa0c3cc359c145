#!/bin/sh
# The Next.js check of docs/serve.md: a throwaway App Router app outside the repo with the docs'
# catch-all route, built and started on 127.0.0.1, driven by ai's own client (DefaultChatTransport
# + readUIMessageStream, what useChat uses). Needs `npm run build` first and the npm registry.
# Usage: sh scripts/next-check.sh   (prints one JSON line; exit 0 when the answer came back whole)
set -eu
REPO=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(mktemp -d /tmp/glassloop-next-XXXXXX)
cd "$DIR"
echo '{ "name": "next-check", "private": true, "type": "module" }' > package.json
npm i -E --no-audit --no-fund next@16.4.6 react@19.3.1 react-dom@19.3.1 > install.log 2>&1
ln -s "$REPO" node_modules/glassloop
mkdir -p "app/api/[...path]"
cat > "app/api/[...path]/route.js" <<'EOF'
import { createHandler } from "glassloop/serve";
import { SqliteStore } from "glassloop/store";
import { FunctionModel } from "glassloop/testing";

const serve = createHandler({
  agents: { support: () => ({ model: new FunctionModel(() => ({ text: "Hello from the route" })) }) },
  auth: { tokens: { web: process.env.CHAT_TOKEN ?? "a-long-random-web-token" } },
  store: new SqliteStore({ path: ":memory:" }),
  log: ":memory:",
  page: false,
});
export const GET = serve.fetch;
export const POST = serve.fetch;
export const DELETE = serve.fetch;
export const runtime = "nodejs";
EOF
echo 'export default function RootLayout({ children }) { return <html lang="en"><body>{children}</body></html>; }' > app/layout.jsx
echo 'export default function Page() { return <p>next-check</p>; }' > app/page.jsx
echo 'export default { serverExternalPackages: ["glassloop", "better-sqlite3"] };' > next.config.mjs
cat > drive.mjs <<EOF
import { DefaultChatTransport, readUIMessageStream } from "$REPO/node_modules/ai/dist/index.mjs";
const base = process.argv[2];
const token = { authorization: "Bearer a-long-random-web-token" };
const transport = new DefaultChatTransport({ api: \`\${base}/api/chat\`, headers: token, body: { agent: "support" } });
const stream = await transport.sendMessages({
  chatId: "next-chat-1", trigger: "submit-message", messageId: undefined, abortSignal: undefined,
  messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] }],
});
let last;
for await (const message of readUIMessageStream({ stream })) last = message;
const text = last.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const me = await (await fetch(\`\${base}/api/me\`, { headers: token })).json();
const unauthenticated = (await fetch(\`\${base}/api/me\`)).status;
console.log(JSON.stringify({ text, status: last.metadata?.status, me, unauthenticated }));
process.exit(text === "Hello from the route" && unauthenticated === 401 ? 0 : 1);
EOF
# Webpack: Turbopack does not resolve a package linked from outside the app's folder.
NEXT_TELEMETRY_DISABLED=1 ./node_modules/.bin/next build --webpack > build.log 2>&1
PORT=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
NEXT_TELEMETRY_DISABLED=1 ./node_modules/.bin/next start -H 127.0.0.1 -p "$PORT" > start.log 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 1; done
node drive.mjs "http://127.0.0.1:$PORT"
