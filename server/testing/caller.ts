/** Test support for router tests: tRPC callers acting as each person, the app config, error capture. */
import { TRPCError } from "@trpc/server";
import type { Db } from "@/db/client";
import type { Database } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { asDatabase, TEST_KEY_RING } from "@/server/testing/test-db";
import { createCaller } from "../api/root";
import type { AppConfig } from "@/server/config";

/** Mail goes to the outbox table only; the log line is kept here for assertions. */
export function testConfig(log: string[] = []): AppConfig {
  return {
    appUrl: "http://ferry.test",
    mail: { from: "Ferry <ferry@test>", log: (l) => log.push(l), keyRing: TEST_KEY_RING },
    keyRing: TEST_KEY_RING,
    purgeAfterDays: 14,
  };
}

/** The TRPCError a call fails with (fails the test if it succeeds or throws something else). */
export async function trpcError(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${error === null ? "success" : String(error)}`);
  return error;
}

/** A tRPC caller acting as `actor` (or anonymous). */
export function callerAs(target: Db | Database["db"] | Database, actor: Actor | null, config: AppConfig = testConfig()) {
  const database = asDatabase(target);
  return createCaller({ database, actor, clientAddress: "127.0.0.1", config });
}
