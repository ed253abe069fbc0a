/**
 * `used_link_tokens`: the one-time Link URL tokens already spent on a Connect (each works once),
 * kept until they would have expired anyway. Times are on the sandbox clock.
 */
import type Database from "better-sqlite3";

/** The used_link_tokens table's repository. */
export function createLinkTokensTable(db: Database.Database) {
  const s = {
    spent: db.prepare<{ token: string }, { one: number }>("SELECT 1 AS one FROM used_link_tokens WHERE token = @token"),
    spend: db.prepare<{ token: string; issuedAt: number; at: number }>(
      "INSERT INTO used_link_tokens (token, issued_at, used_at) VALUES (@token, @issuedAt, @at) ON CONFLICT (token) DO NOTHING",
    ),
    prune: db.prepare<{ before: number }>("DELETE FROM used_link_tokens WHERE issued_at < @before"),
  };
  return {
    /** Whether `token` was already spent. */
    isSpent: (token: string): boolean => s.spent.get({ token }) !== undefined,
    /**
     * Spends `token` (issued at `issuedAt`) at sandbox time `at`: true the first time, false once it
     * was spent (one statement; callers check and spend inside one transaction with the Connect).
     */
    spend: (params: { token: string; issuedAt: number; at: number }): boolean => s.spend.run(params).changes === 1,
    /** Forgets tokens issued before `before` (expired, so refused whatever this table says). */
    prune: (before: number): void => {
      s.prune.run({ before });
    },
  };
}
