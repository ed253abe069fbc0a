/**
 * PostgreSQL session-level advisory locks on a connection of their own: a lock held here lasts as
 * long as this session, and the server releases it the moment the session ends — the process
 * exited or was killed, or its connection dropped. What a worker holds to say it is alive
 * (server/migration/engine/liveness.ts); another session can tell it is gone by taking the same
 * lock. Keys are (namespace, hashtext(name)): a name of any length, in a namespace of the caller's.
 * None on SQLite (`openAdvisoryLocks` answers null).
 */
import { Client } from "pg";
import { onClose, postgresUrlOf, type Database } from "./database";

export type AdvisoryLocks = {
  /** Takes the lock on (namespace, name) for as long as this session lives; false when another session holds it. */
  hold(namespace: number, name: string): Promise<boolean>;
  /** Whether no session holds the lock on (namespace, name) now: taken with pg_try_advisory_lock and let go at once. */
  isFree(namespace: number, name: string): Promise<boolean>;
  /** Ends the session (and so every lock it holds). */
  close(): Promise<void>;
};

/** A session of its own on the database's server, or null on SQLite. `onLost`: the session ended by itself (its locks are gone). */
export async function openAdvisoryLocks(database: Database, onLost: (error: Error) => void = () => {}): Promise<AdvisoryLocks | null> {
  const url = postgresUrlOf(database);
  if (!url) return null;
  const client = new Client({ connectionString: url });
  let closing = false;
  // A dropped connection emits 'error': without a listener it would end the process.
  client.on("error", (error) => {
    if (!closing) onLost(error);
  });
  await client.connect();
  const end = async () => {
    closing = true;
    await client.end().catch(() => {});
  };
  // The session ends with the database it was opened for, whoever forgets to close it.
  const forget = onClose(database, end);
  // One query at a time on the session: probes and holds never interleave on it.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => {});
    return next;
  };
  const tryLock = async (namespace: number, name: string) =>
    (await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::int, hashtext($2)) AS ok", [namespace, name])).rows[0]?.ok === true;
  return {
    hold: (namespace, name) => serial(() => tryLock(namespace, name)),
    isFree: (namespace, name) =>
      serial(async () => {
        if (!(await tryLock(namespace, name))) return false;
        await client.query("SELECT pg_advisory_unlock($1::int, hashtext($2))", [namespace, name]);
        return true;
      }),
    async close() {
      forget();
      await queue.catch(() => {});
      await end();
    },
  };
}
