/**
 * Runs at once per worker process in `npm run bench -- scale`, on both sides: the bare DBOS
 * worker's queue and every glassloop worker (whose own default is 4). One number, so the two
 * sides of the throughput table cannot drift apart again (until 2026-12-03 the glassloop
 * throughput workers ran at the default 4 against the bare worker's 8).
 */
export const WORKER_CONCURRENCY = 8;
