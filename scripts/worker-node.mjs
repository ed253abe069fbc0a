// How a migration worker's Node process is started, wherever it is (npm start, npm run worker, the
// benches; deploy/systemd/ferry-worker.service writes the same flag, checked by its test).
//
// The worker's old-generation heap is held to FERRY_WORKER_HEAP_MB (default 192). A worker is a
// long-lived process whose live data is small (the items in hand, the pacer's state); left to
// itself V8 lets the heap grow toward its default ceiling before collecting, so a bulk run's RSS
// rose from about 180 to over 300 MB within a minute, all of it garbage not yet collected. With
// the heap held, the same run stays near 190 MB (docs/benchmarks.md, bulk-100k).

/** The worker's heap ceiling in MB: FERRY_WORKER_HEAP_MB, else 192 (at least 64). */
export function workerHeapMb(env = process.env) {
  const asked = Number(env.FERRY_WORKER_HEAP_MB);
  return Number.isFinite(asked) && asked >= 64 ? Math.round(asked) : 192;
}

/** Node's arguments for the worker entry `entry` (a TypeScript file run through tsx). */
export function workerNodeArgs(entry, env = process.env) {
  return [`--max-old-space-size=${workerHeapMb(env)}`, "--import", "tsx", entry];
}
