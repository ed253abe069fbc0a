/** `used_link_nonces`: the Link pages' nonces already spent on a Connect (each works once), kept for their lifetime. */
import type Database from "better-sqlite3";

/** The used_link_nonces table's repository. */
export function createLinkNoncesTable(db: Database.Database) {
  const s = {
    use: db.prepare<{ nonce: string; at: number }>("INSERT INTO used_link_nonces (nonce, used_at) VALUES (@nonce, @at) ON CONFLICT (nonce) DO NOTHING"),
    prune: db.prepare<{ before: number }>("DELETE FROM used_link_nonces WHERE used_at < @before"),
  };
  return {
    /** Spends `nonce` at real time `at`: true the first time, false once it was spent (one statement, so two Connects at once cannot both win). */
    use: (nonce: string, at: number): boolean => s.use.run({ nonce, at }).changes === 1,
    /** Forgets nonces spent before `before` (too old to pass the lifetime check anyway). */
    prune: (before: number): void => {
      s.prune.run({ before });
    },
  };
}
