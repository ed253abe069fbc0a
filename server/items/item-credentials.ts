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

/** The row a migration item's credentials belong to. */
export type ItemRef = { engagementId: string; itemId: string };
/** The row a submission's OAuth client secret belongs to. */
export type SubmissionRef = { engagementId: string; submissionId: string };

/** Associated data of a migration item's credentials. */
export function itemCredentialsContext(ref: ItemRef): string {
  return `migration_item:${ref.engagementId}:${ref.itemId}`;
}

/** Associated data of a submission's OAuth client secret. */
export function clientSecretContext(ref: SubmissionRef): string {
  return `intake_submission:${ref.engagementId}:${ref.submissionId}`;
}

/** Encrypts one company's credential map (JSON) for its migration item. */
export function sealItemCredentials(ring: KeyRing, ref: ItemRef, credentials: Readonly<Record<string, string>>): string {
  return encryptSecret(ring, JSON.stringify(credentials), itemCredentialsContext(ref));
}

/** Decrypts a migration item's credential map (throws SecretDecryptionError on a wrong key or row). */
export function openItemCredentials(ring: KeyRing, ref: ItemRef, cipher: string): Record<string, string> {
  const parsed: unknown = JSON.parse(decryptSecret(ring, cipher, itemCredentialsContext(ref)));
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("Migration item credentials are not a map");
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
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
  const secret = new Set(platform.credentialFields.filter((f) => f.secret).map((f) => f.name));
  return Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, secret.has(k) ? maskSecret(v) : v]));
}

/** The access token's expiry named in a credential map (`expiresAt`), or null when absent or unreadable. */
export function accessTokenExpiry(credentials: Readonly<Record<string, string>>): Date | null {
  const raw = credentials.expiresAt;
  if (!raw) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : new Date(ms);
}
