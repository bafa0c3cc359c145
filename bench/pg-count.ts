/**
 * Counts what a process sends to Postgres, for `npm run bench -- scale`: every `pg` query is one
 * round trip (pg sends one at a time per connection), and every transaction (an explicit
 * `begin … commit`, or a statement outside one) is one commit. Both are load-independent, unlike
 * milliseconds on a shared machine. Patches `pg.Client.prototype.query`, which DBOS's pool and
 * glassloop's pools share (one `pg` in node_modules).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { mainThreadMs } from "./floor/main-thread.mjs";

/** What was sent: round trips, transactions, and round trips by kind (`insert run_events`…). */
export interface PgCounts {
  roundTrips: number;
  transactions: number;
  byKind: Record<string, number>;
}

const counts: PgCounts = { roundTrips: 0, transactions: 0, byKind: {} };
const IN_TX = Symbol("bench.inTransaction");

/** The statement's verb and first table: `select operation_outputs`, `begin`. */
function kindOf(text: string): string {
  const sql = text.trim().toLowerCase();
  const verb = /^[a-z]+/.exec(sql)?.[0] ?? "?";
  const table = /\b(?:from|into|update)\s+(?:"?[a-z_]+"?\.)?"?([a-z_]+)/.exec(sql)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/** Starts counting in this process (once). */
export function countPgQueries(): void {
  const pg = createRequire(import.meta.url)("pg") as {
    Client: { prototype: { query: (...args: unknown[]) => unknown } & Record<symbol, unknown> };
  };
  const proto = pg.Client.prototype;
  if ((proto as Record<string, unknown>).__benchCounted) return;
  (proto as Record<string, unknown>).__benchCounted = true;
  const original = proto.query;
  proto.query = function counted(this: Record<symbol, unknown>, ...args: unknown[]) {
    const first = args[0];
    const text =
      typeof first === "string"
        ? first
        : typeof (first as { text?: unknown })?.text === "string"
          ? (first as { text: string }).text
          : "";
    const kind = kindOf(text);
    counts.roundTrips++;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    if (kind === "begin" || kind === "start") {
      this[IN_TX] = true;
      counts.transactions++;
    } else if (kind === "commit" || kind === "rollback" || kind === "end") this[IN_TX] = false;
    else if (!this[IN_TX]) counts.transactions++;
    return original.apply(this, args);
  };
}

/** The counts so far (a copy). */
export function pgCounts(): PgCounts {
  return { roundTrips: counts.roundTrips, transactions: counts.transactions, byKind: { ...counts.byKind } };
}

/** `after` minus `before`. */
export function pgDelta(before: PgCounts, after: PgCounts): PgCounts {
  const byKind: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byKind)) {
    const d = v - (before.byKind[k] ?? 0);
    if (d !== 0) byKind[k] = d;
  }
  return {
    roundTrips: after.roundTrips - before.roundTrips,
    transactions: after.transactions - before.transactions,
    byKind,
  };
}

/** One step's cost, as both sides of the bench report it. */
export interface StepCost {
  msPerStep: number;
  cpuMsPerStep: number;
  roundTripsPerStep: number;
  transactionsPerStep: number;
  /** Round trips of the whole window by kind. */
  byKind: Record<string, number>;
}

interface Mark {
  at: number;
  cpu: NodeJS.CpuUsage;
  pg: PgCounts;
}

/**
 * Measures the window from the start of a run's first model call to the start of its last: each
 * step in it is whole (the model step, the tool step, their records and events), on both sides.
 */
export class StepWindow {
  #first: Mark | undefined;
  #last: Mark | undefined;

  /** Called at the start of model call number `call` (1-based) of a run of `steps`. */
  model(call: number, steps: number): void {
    if (call === 1) this.#first = this.#mark();
    if (call === steps) this.#last = this.#mark();
  }

  /** The last run's cost per step, or undefined if it did not reach its last model call. */
  cost(steps: number): StepCost | undefined {
    const first = this.#first;
    const last = this.#last;
    this.#first = undefined;
    this.#last = undefined;
    if (!first || !last) return undefined;
    const n = steps - 1;
    const pg = pgDelta(first.pg, last.pg);
    const cpu = last.cpu.user - first.cpu.user + last.cpu.system - first.cpu.system;
    return {
      msPerStep: (last.at - first.at) / n,
      cpuMsPerStep: cpu / 1000 / n,
      roundTripsPerStep: pg.roundTrips / n,
      transactionsPerStep: pg.transactions / n,
      byKind: pg.byKind,
    };
  }

  #mark(): Mark {
    return { at: performance.now(), cpu: process.cpuUsage(), pg: pgCounts() };
  }
}

/** What a worker process spent between two points: its CPU and what it sent to Postgres. */
export interface Spent {
  cpuMs: number;
  /**
   * The part of `cpuMs` spent on the main thread (the JavaScript), 10 ms resolution; the rest is
   * V8's compiler and GC threads and libuv's pool. Undefined where /proc is not there.
   */
  mainCpuMs?: number;
  /** Instructions executed in the window, all threads (BENCH_SCALE_CALLGRIND: the child runs under callgrind). */
  instructions?: number;
  roundTrips: number;
  transactions: number;
  byKind: Record<string, number>;
}

/**
 * Answers the bench's `mark` and `spent` lines on stdin: `SPENT` with what was spent since the
 * mark. With BENCH_SCALE_WINDOW_PROFILE=<dir>, a CPU profile of just that window is written there.
 */
export class SpentSince {
  #cpu = process.cpuUsage();
  #pg = pgCounts();
  #session: import("node:inspector/promises").Session | undefined;

  async mark(): Promise<void> {
    if (process.env.BENCH_SCALE_WINDOW_PROFILE) {
      const { Session } = await import("node:inspector/promises");
      this.#session = new Session();
      this.#session.connect();
      await this.#session.post("Profiler.enable");
      await this.#session.post("Profiler.start");
    }
    if (process.env.BENCH_SCALE_CALLGRIND) callgrind("-z", "-i", "on");
    this.#cpu = process.cpuUsage();
    this.#pg = pgCounts();
    this.#main = mainThreadMs();
  }

  #main: number | undefined;

  async spent(): Promise<Spent> {
    const cpu = process.cpuUsage(this.#cpu);
    const pg = pgDelta(this.#pg, pgCounts());
    const instructions = process.env.BENCH_SCALE_CALLGRIND ? callgrindWindow() : undefined;
    const dir = process.env.BENCH_SCALE_WINDOW_PROFILE;
    if (this.#session && dir) {
      const { profile } = await this.#session.post("Profiler.stop");
      const { writeFileSync } = await import("node:fs");
      writeFileSync(`${dir}/window-${process.pid}.cpuprofile`, JSON.stringify(profile));
      this.#session.disconnect();
      this.#session = undefined;
    }
    const main = mainThreadMs();
    return {
      cpuMs: (cpu.user + cpu.system) / 1000,
      ...(main !== undefined && this.#main !== undefined && { mainCpuMs: main - this.#main }),
      ...(instructions !== undefined && { instructions }),
      ...pg,
    };
  }
}

/** Runs `callgrind_control <args> <this process>` (this process runs under callgrind). */
function callgrind(...args: string[]): void {
  execFileSync("callgrind_control", [...args, String(process.pid)], { stdio: "ignore" });
}

/** Stops callgrind's instrumentation, dumps, and returns the dump's total instructions. */
function callgrindWindow(): number {
  callgrind("-i", "off");
  callgrind("-d");
  const dir = process.env.BENCH_SCALE_CALLGRIND as string;
  const prefix = `cg-${process.pid}.out.`;
  const dumps = readdirSync(dir).filter((f) => f.startsWith(prefix));
  const last = dumps.sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length))).at(-1);
  const text = last ? readFileSync(`${dir}/${last}`, "utf8") : "";
  return Number(/^totals: (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}
