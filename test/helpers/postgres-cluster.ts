/**
 * A throwaway Postgres cluster for tests and the bench: initdb into a temporary directory, start
 * it on 127.0.0.1 on a free port with its socket in that directory, stop it and delete it after.
 * As root (CI), initdb and pg_ctl refuse to run, so they run as the `postgres` user, who owns
 * the data directory and the log file.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** Where Debian's postgresql-15 puts its programs; `GLASSLOOP_PG_BIN` overrides. */
export const PG_BIN = process.env.GLASSLOOP_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Whether initdb and pg_ctl are installed. */
export function postgresInstalled(): boolean {
  return existsSync(join(PG_BIN, "initdb")) && existsSync(join(PG_BIN, "pg_ctl"));
}

/** A running cluster. */
export interface Cluster {
  url: string;
  dir: string;
  port: number;
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The uid and gid the server runs as: this user, or `postgres` when this is root. */
function serverUser(): { uid: number; gid: number; runAs?: string } {
  const me = userInfo();
  if (me.uid !== 0) return { uid: me.uid, gid: me.gid };
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid, runAs: "postgres" };
}

/**
 * Starts a cluster. `durable: false` (tests) turns fsync off; the bench keeps the defaults so its
 * numbers are what a real server costs. `settings`: more server settings (`name=value`).
 */
export async function startCluster(
  options: { durable?: boolean; base?: string; settings?: string[] } = {},
): Promise<Cluster> {
  if (!postgresInstalled())
    throw new Error(`Postgres is not installed at ${PG_BIN} (apt-get install -y postgresql-15)`);
  const user = serverUser();
  const dir = options.base ?? mkdtempSync(join(tmpdir(), "glassloop-pg-"));
  mkdirSync(dir, { recursive: true });
  // The server user must reach its directories inside ours.
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  const sockets = join(dir, "sockets");
  const log = join(dir, "server.log");
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(sockets, { mode: 0o700 });
  writeFileSync(log, "");
  for (const path of [data, sockets, log]) chownSync(path, user.uid, user.gid);
  const run = (program: string, args: string[]) => {
    const command = join(PG_BIN, program);
    const [file, argv] = user.runAs
      ? ["runuser", ["-u", user.runAs, "--", command, ...args]]
      : [command, args];
    execFileSync(file, argv, { stdio: ["ignore", "ignore", "pipe"], cwd: dir, timeout: 60_000 });
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = await freePort();
  const settings = [
    "-c listen_addresses=127.0.0.1",
    `-p ${port}`,
    `-c unix_socket_directories=${sockets}`,
    "-c max_connections=200",
    ...(options.settings ?? []).map((setting) => `-c ${setting}`),
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
  ].join(" ");
  try {
    run("pg_ctl", ["-D", data, "-l", log, "-o", settings, "-w", "-t", "60", "start"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dir,
    port,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
