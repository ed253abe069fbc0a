/** Types of scripts/postgres.mjs. */
export type ThrowawayPostgres = {
  /** `postgres://ferry@127.0.0.1:<port>/postgres` (superuser `ferry`, trust authentication). */
  url: string;
  port: number;
  /** The temporary folder holding the cluster; removed by stop(). */
  dir: string;
  /** Shuts the server down and removes its folder. */
  stop(): Promise<void>;
};

/** The folder holding initdb, pg_ctl and postgres (FERRY_PG_BIN, else Debian's newest major), or null. */
export function findPostgresBin(): string | null;
/** The binaries' folder, installing Debian's postgresql package as root when missing; throws with what to install otherwise. */
export function ensurePostgres(options?: { log?: (line: string) => void; install?: boolean }): string;
/** Starts a throwaway cluster in a temporary folder on a random loopback port. */
export function startPostgres(options?: { log?: (line: string) => void; install?: boolean }): Promise<ThrowawayPostgres>;
/** Stops a cluster started by startPostgres and removes its folder. */
export function stopPostgres(server: ThrowawayPostgres): Promise<void>;
