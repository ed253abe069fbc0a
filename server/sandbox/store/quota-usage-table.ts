/** `quota_usage`: requests each client made on each sandbox-clock UTC day while quota mode was on. */
import type Database from "better-sqlite3";

/** The quota_usage table's repository. */
export function createQuotaUsageTable(db: Database.Database) {
  const s = {
    increment: db.prepare<{ clientId: string; day: number }, { used: number }>(
      `INSERT INTO quota_usage (client_id, day, used) VALUES (@clientId, @day, 1)
       ON CONFLICT (client_id, day) DO UPDATE SET used = used + 1
       RETURNING used`,
    ),
    deleteBefore: db.prepare<{ day: number }>("DELETE FROM quota_usage WHERE day < @day"),
  };
  return {
    /** Counts one request for the client on `day` (days since the epoch); returns the day's count. */
    increment: (params: { clientId: string; day: number }): number => s.increment.get(params)?.used ?? 1,
    /** Forgets the days before `day`: a quota never looks back. */
    deleteBefore: (day: number): void => {
      s.deleteBefore.run({ day });
    },
  };
}
