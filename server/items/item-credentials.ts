/**
 * The encryption contexts of an engagement's secrets, in one place so the intake that seals them
 * and the migration engine that opens them cannot disagree. Each ciphertext is bound (as AES-GCM
 * associated data) to the row it belongs to: moved to another row, it no longer decrypts.
 *
 * These functions are pure; the caller that opens a secret records the decryption in the audit
 * log (every decryption is an audit event).
 */
import { decryptSecret, encryptSecret, maskSecret, type KeyRing } from "@/server/security/secrets";
import type { ManagedPlatform } from "@/server/platforms";
import type { SecretToSeal } from "@/server/security/sealing-thread";

/** The row a migration item's credentials belong to. */
export type ItemRef = { engagementId: string; itemId: string };
/** The row a submission's OAuth client secret belongs to. */
export type SubmissionRef = { engagementId: string; submissionId: string };

/** The row a supplementary file's fresh credentials for one company belong to. */
export type SupplementaryRowRef = { engagementId: string; fileId: string; rowId: string };

/** Associated data of a migration item's credentials. */
export function itemCredentialsContext(ref: ItemRef): string {
  return `migration_item:${ref.engagementId}:${ref.itemId}`;
}

/** Associated data of a submission's OAuth client secret. */
export function clientSecretContext(ref: SubmissionRef): string {
  return `intake_submission:${ref.engagementId}:${ref.submissionId}`;
}

/** Associated data of one company's fresh credentials in a supplementary file. */
export function supplementaryRowContext(ref: SupplementaryRowRef): string {
  return `supplementary_row:${ref.engagementId}:${ref.fileId}:${ref.rowId}`;
}

/** Encrypts one company's credential map (JSON) for its migration item. */
export function sealItemCredentials(ring: KeyRing, ref: ItemRef, credentials: Readonly<Record<string, string>>): string {
  const { plain, context } = itemCredentialsToSeal(ref, credentials);
  return encryptSecret(ring, plain, context);
}

/** One company's credential map as the secret to seal for its migration item (its JSON, and the item's context). */
export function itemCredentialsToSeal(ref: ItemRef, credentials: Readonly<Record<string, string>>): SecretToSeal {
  return { plain: JSON.stringify(credentials), context: itemCredentialsContext(ref) };
}

/** Decrypts a migration item's credential map (throws SecretDecryptionError on a wrong key or row). */
export function openItemCredentials(ring: KeyRing, ref: ItemRef, cipher: string): Record<string, string> {
  return credentialMap(decryptSecret(ring, cipher, itemCredentialsContext(ref)), "Migration item credentials");
}

/** A decrypted credential map's JSON as the map (string values only). */
function credentialMap(json: string, what: string): Record<string, string> {
  const parsed: unknown = JSON.parse(json);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${what} are not a map`);
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Encrypts one company's fresh credential map (JSON) for its row of a supplementary file. */
export function sealSupplementaryCredentials(ring: KeyRing, ref: SupplementaryRowRef, credentials: Readonly<Record<string, string>>): string {
  return encryptSecret(ring, JSON.stringify(credentials), supplementaryRowContext(ref));
}

/** Decrypts a supplementary row's credential map (throws SecretDecryptionError on a wrong key or row). */
export function openSupplementaryCredentials(ring: KeyRing, ref: SupplementaryRowRef, cipher: string): Record<string, string> {
  return credentialMap(decryptSecret(ring, cipher, supplementaryRowContext(ref)), "Supplementary row credentials");
}

/** Encrypts a submission's OAuth client secret. */
export function sealClientSecret(ring: KeyRing, ref: SubmissionRef, secret: string): string {
  return encryptSecret(ring, secret, clientSecretContext(ref));
}

/** Decrypts a submission's OAuth client secret. */
export function openClientSecret(ring: KeyRing, ref: SubmissionRef, cipher: string): string {
  return decryptSecret(ring, cipher, clientSecretContext(ref));
}

/**
 * What screens may show of a credential map: secret fields masked (last four characters at
 * most), the others (account ids, expiry dates, data centres) as they are.
 */
export function maskCredentials(platform: ManagedPlatform, credentials: Readonly<Record<string, string>>): Record<string, string> {
  const secret = secretFields(platform);
  const masked: Record<string, string> = {};
  for (const key of Object.keys(credentials)) masked[key] = secret.has(key) ? maskSecret(credentials[key]!) : credentials[key]!;
  return masked;
}

/** The names of a platform's secret credential fields, made once per platform (a token file masks 100,000 maps). */
const secretFieldNames = new WeakMap<ManagedPlatform, ReadonlySet<string>>();
function secretFields(platform: ManagedPlatform): ReadonlySet<string> {
  let names = secretFieldNames.get(platform);
  if (!names) secretFieldNames.set(platform, (names = new Set(platform.credentialFields.filter((f) => f.secret).map((f) => f.name))));
  return names;
}

/** The access token's expiry named in a credential map (`expiresAt`), or null when absent or unreadable. */
export function accessTokenExpiry(credentials: Readonly<Record<string, string>>): Date | null {
  const raw = credentials.expiresAt;
  if (!raw) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : new Date(ms);
}
