/**
 * Turning an accepted token file's rows into migration items: one row per company, its
 * credentials encrypted for that row alone (see item-credentials.ts), masks and the access token's
 * expiry kept beside them for screens. Used by the intake's submission, the rehearsal and tests.
 *
 * Two halves, because a transaction body must do nothing slow or random (on PostgreSQL it may run
 * more than once, db/database.ts): `sealMigrationItems` makes each item's id and encrypts its
 * credentials *before* the transaction; `insertMigrationItems` is the transaction's step that
 * stores them (db/insert-many.ts: batches of rows, the fastest way each database allows). A token
 * file too large to hold sealed is the exception: `itemSealer` seals its batches as the file is
 * read and `loadMigrationItems` stores them as they come (loadMany; see submit-intake.ts).
 */
import { v7 as uuidv7 } from "uuid";
import type { Steps, Tx } from "@/db/database";
import { insertMany, loadMany, type RowProducer } from "@/db/insert-many";
import { migrationItems } from "@/db/schema";
import type { TokenRow } from "@/server/intake";
import { companyNameOnService, fileWhereOfSourceRef, type ManagedPlatform } from "@/server/platforms";
import { encryptSecret, type KeyRing } from "@/server/security/secrets";
import type { SealingThread, SecretToSeal } from "@/server/security/sealing-thread";
import { accessTokenExpiry, itemCredentialsToSeal, maskCredentials } from "./item-credentials";

/** One company's row as a token file (or a rehearsal's twin) gives it. */
export type ItemSource = Pick<TokenRow, "line" | "cell" | "name" | "externalRef" | "records" | "credentials"> & {
  /** The old app's record counts per data type (a token file's `count_<dataType>` columns). */
  oldCounts?: Record<string, number> | null;
  /** Where the row was, when it is not the row's index in `rows` (a rehearsal's twins keep their real item's). */
  position?: number;
  sourceRef?: string;
  /** The name sent to the service; by default the name rule's for the row (a token file's rows carry it from their check). */
  serviceName?: string;
};

/** A migration item ready to store: its id made and its credentials sealed for it. */
export type SealedItem = typeof migrationItems.$inferInsert;

/**
 * Rows sealed and stored per batch by the callers that stream (see submit-intake.ts): one SQLite
 * statement's worth (db/insert-many.ts). Small on purpose: a batch's rows and sealed items then die
 * young, where batches of 1,000–2,000 lived long enough to be promoted to V8's old generation and
 * the garbage raised a 100,000-row intake's peak RSS from about 230 MB to 310–330 MB
 * (docs/benchmarks.md, intake).
 */
export const ITEMS_PER_BATCH = 100;

/** What sealing a batch of rows needs besides the rows. */
export type SealParams = {
  ring: KeyRing;
  platform: ManagedPlatform;
  engagementId: string;
  submissionId: string;
  at: Date;
  /** A rehearsal's simulated items: the run that made them (see item-scope.ts). */
  rehearsalRunId?: string;
};

/**
 * One pending migration item per row, in file order (position = index + `offset` unless the row
 * says its own), with a fresh id each, and the credentials to encrypt for that id: everything but
 * the encryption.
 */
function prepareMigrationItems(params: SealParams & { rows: readonly ItemSource[]; offset?: number }): { items: SealedItem[]; secrets: SecretToSeal[] } {
  const { platform, engagementId, submissionId, at } = params;
  const offset = params.offset ?? 0;
  const rehearsalRunId = params.rehearsalRunId ?? null;
  const secrets: SecretToSeal[] = [];
  const items = params.rows.map((row, index): SealedItem => {
    // Time-ordered (UUIDv7, the uuid library's): a file's items land at the end of the primary key's
    // index instead of at random places in it, which makes storing 100,000 of them on SQLite about
    // 15 % faster (docs/benchmarks.md, intake). Each keeps 42 random bits of its own; an item's id is
    // never what authorizes anything (every access checks the viewer's organisation).
    const id = uuidv7();
    const sourceRef = row.sourceRef ?? (row.cell ? `cell ${row.cell}` : `line ${row.line}`);
    secrets.push(itemCredentialsToSeal({ engagementId, itemId: id }, row.credentials));
    return {
      id,
      engagementId,
      submissionId,
      position: row.position ?? offset + index,
      sourceRef,
      name: row.name,
      serviceName: row.serviceName ?? companyNameOnService({ name: row.name, externalRef: row.externalRef, where: fileWhereOfSourceRef(sourceRef) }).name,
      externalRef: row.externalRef,
      recordsHint: row.records,
      oldCounts: row.oldCounts ?? null,
      credentialsCipher: null,
      credentialsMask: maskCredentials(platform, row.credentials),
      accessTokenExpiresAt: accessTokenExpiry(row.credentials),
      state: "pending",
      rehearsalRunId,
      updatedAt: at,
    };
  });
  return { items, secrets };
}

/**
 * Makes one pending migration item per row, in file order (position = index + `offset` unless the
 * row says its own): a fresh id each, the credentials encrypted for that id. Pure but for the
 * randomness (ids, IVs): call it before the transaction, never inside a body.
 */
export function sealMigrationItems(params: SealParams & { rows: readonly ItemSource[]; offset?: number }): SealedItem[] {
  const { items, secrets } = prepareMigrationItems(params);
  for (let i = 0; i < items.length; i++) items[i]!.credentialsCipher = encryptSecret(params.ring, secrets[i]!.plain, secrets[i]!.context);
  return items;
}

/** Seals batches of rows as they come, in order: `add` one (with the position of its first row) and get back those sealed so far, `flush` for the rest. */
export type ItemSealer = { add(rows: readonly ItemSource[], offset: number): SealedItem[][]; flush(): SealedItem[][] };

/**
 * An ItemSealer whose encryption runs on a sealing thread (server/security/sealing-thread.ts): a
 * batch is prepared here (ids, masks) and its credentials handed to the thread, and it comes back
 * sealed one batch later, so the thread encrypts a batch while the caller reads and prepares the
 * next. Without a thread, each batch is sealed at once (sealMigrationItems).
 */
export function itemSealer(params: SealParams, thread: SealingThread | null): ItemSealer {
  if (!thread) return { add: (rows, offset) => [sealMigrationItems({ ...params, rows, offset })], flush: () => [] };
  let waiting: SealedItem[] | undefined;
  const collect = (): SealedItem[][] => {
    if (!waiting) return [];
    const items = waiting;
    waiting = undefined;
    const ciphers = thread.take();
    for (let i = 0; i < items.length; i++) items[i]!.credentialsCipher = ciphers[i]!;
    return [items];
  };
  return {
    add(rows, offset) {
      const { items, secrets } = prepareMigrationItems({ ...params, rows, offset });
      thread.post(secrets);
      const done = collect();
      waiting = items;
      return done;
    },
    flush: collect,
  };
}

/** Stores sealed items; returns how many were inserted. A step of the caller's transaction. */
export function* insertMigrationItems(tx: Tx, items: readonly SealedItem[]): Steps<number> {
  return yield* insertMany(tx, migrationItems, items);
}

/** Stores the sealed items `produce` makes while the step runs (a file read and sealed batch by batch: see loadMany); returns how many. */
export function* loadMigrationItems(tx: Tx, produce: RowProducer<SealedItem>): Steps<number> {
  return yield* loadMany(tx, migrationItems, produce);
}
