/** A webhook receiver on 127.0.0.1 for the push-notification tests. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One notification as the receiver got it. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook on 127.0.0.1 that answers with `status` (or never, for "hang"). */
export async function receiver(answer: number | "hang" = 200) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (answer === "hang") return;
      res.writeHead(answer, answer >= 300 && answer < 400 ? { location: "http://169.254.169.254/" } : {});
      res.end("ok");
    });
  }).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
