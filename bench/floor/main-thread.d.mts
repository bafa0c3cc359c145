/** The main thread's CPU so far, in ms (Linux: utime + stime in /proc, 10 ms ticks); undefined elsewhere. */
export function mainThreadMs(): number | undefined;
