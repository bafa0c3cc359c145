// The command the conformance runner starts for each client scenario. Starting glassloop's sources
// per scenario costs seconds on a small machine, so this plain script only relays: it hands the
// scenario, the test server's URL and the context to the test process (over a Unix socket), where
// glassloop's client runs, and exits with the code the client's run ended with.
import { connect } from "node:net";

const socket = connect(process.env.GLASSLOOP_CONFORMANCE_SOCKET ?? "");
let reply = "";
socket.on("data", (chunk) => {
  reply += chunk.toString();
});
socket.on("end", () => {
  const { code, output } = JSON.parse(reply);
  process.stdout.write(output);
  process.exit(code);
});
socket.on("error", (error) => {
  process.stderr.write(`relay: ${error.message}\n`);
  process.exit(3);
});
socket.write(
  `${JSON.stringify({
    scenario: process.env.MCP_CONFORMANCE_SCENARIO ?? "",
    url: process.argv[2] ?? "",
    context: process.env.MCP_CONFORMANCE_CONTEXT ?? null,
  })}\n`,
);
