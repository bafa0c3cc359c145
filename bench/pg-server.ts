/**
 * What the Postgres server itself spends, for `npm run bench -- scale`'s throughput table: on a
 * 2-core machine the workers share the cores with Postgres, so a run's cost is its worker's CPU
 * and the server's. Two measures: the CPU of the cluster's processes (Linux /proc), and, with
 * BENCH_SCALE_PGSS=1, the server's time by statement (pg_stat_statements).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PgPool } from "../src/store/postgres/pg-driver.js";

/** The server settings BENCH_SCALE_PGSS=1 needs (pg_stat_statements, with planning time). */
export const PGSS_SETTINGS = [
  "shared_preload_libraries=pg_stat_statements",
  "pg_stat_statements.track_planning=on",
  "pg_stat_statements.max=1000",
];

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/**
 * CPU ms used so far by the processes of the cluster in `dir` (the postmaster and its children:
 * backends, writers); undefined where /proc is not there. A backend that exits takes its CPU with
 * it, so measure across a window in which the workers' pools stay connected.
 */
export function serverCpuMs(dir: string): number | undefined {
  try {
    const postmaster = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    let ticks = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      if (pid !== postmaster && Number(fields[1]) !== postmaster) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return (ticks * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * The statements the server spent most time on in this database, per run (`runs`): execution and
 * planning ms, and calls. Needs PGSS_SETTINGS; resets nothing (each throughput row has its own
 * database, so its rows are its own).
 */
export async function topStatements(pool: PgPool, runs: number, limit = 12): Promise<string[]> {
  await pool.query("create extension if not exists pg_stat_statements");
  const { rows } = await pool.query<{ ms: number; planMs: number; calls: number; query: string }>(
    `select (total_exec_time + total_plan_time) / $1 as ms, total_plan_time / $1 as "planMs",
            calls::float / $1 as calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) as query
     from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database())
     order by total_exec_time + total_plan_time desc limit $2`,
    [runs, limit],
  );
  const total = rows.reduce((sum, r) => sum + Number(r.ms), 0);
  return [
    `server time by statement, ms per run (top ${rows.length}: ${total.toFixed(2)} ms; of it planning), calls per run:`,
    ...rows.map(
      (r) =>
        `${Number(r.ms).toFixed(3).padStart(8)} (${Number(r.planMs).toFixed(3)}) ${Number(r.calls).toFixed(2).padStart(6)}  ${r.query}`,
    ),
  ];
}
