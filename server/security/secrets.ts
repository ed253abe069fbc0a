/**
 * Secrets at rest: AES-256-GCM, a random 96-bit IV per value, the key id in the envelope so keys
 * can be rotated (old keys stay able to decrypt). Envelope: `v1.<keyId>.<iv>.<tag>.<ciphertext>`
 * (base64url parts). Plain values never leave this module except to the caller that asked.
 */
import crypto from "node:crypto";

export type KeyRing = {
  current: { id: string; key: Buffer };
  /** Every key that may decrypt, by id (the current one included). */
  all: ReadonlyMap<string, Buffer>;
};

/** Parses `<id>:<base64>` key specs (the first is current) into a key ring. */
export function keyRingFrom(current: string, old: readonly string[] = []): KeyRing {
  const parse = (spec: string) => {
    const at = spec.indexOf(":");
    const id = spec.slice(0, at);
    const key = Buffer.from(spec.slice(at + 1), "base64");
    if (at < 1 || key.length !== 32) throw new Error(`Encryption key "${id || "?"}" must be 32 bytes`);
    return { id, key };
  };
  const cur = parse(current);
  const all = new Map<string, Buffer>([[cur.id, cur.key]]);
  for (const spec of old) {
    const k = parse(spec);
    if (!all.has(k.id)) all.set(k.id, k.key);
  }
  return { current: cur, all };
}

/** A new random key spec `<id>:<base64>`, for local defaults and rotation. */
export function generateKeySpec(id = `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`): string {
  return `${id}:${crypto.randomBytes(32).toString("base64")}`;
}

/** IVs are cut from a pool of random bytes, filled again when spent: each IV is used once, and a file of 100,000 secrets makes 293 calls for randomness instead of 100,000. */
const IV_BYTES = 12;
const ivPool = Buffer.alloc(IV_BYTES * 341);
let ivOffset = ivPool.length;

function freshIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    crypto.randomFillSync(ivPool);
    ivOffset = 0;
  }
  const iv = Buffer.from(ivPool.subarray(ivOffset, ivOffset + IV_BYTES));
  ivOffset += IV_BYTES;
  return iv;
}

/** Each raw key as a KeyObject, made once (createCipheriv would import the raw bytes on every call). */
const keyObjects = new WeakMap<Buffer, crypto.KeyObject>();
function keyObject(key: Buffer): crypto.KeyObject {
  let made = keyObjects.get(key);
  if (!made) keyObjects.set(key, (made = crypto.createSecretKey(key)));
  return made;
}

/** Encrypts a UTF-8 string with the ring's current key. */
export function encryptSecret(ring: KeyRing, plain: string, associatedData = ""): string {
  return sealEnvelope(crypto, { key: keyObject(ring.current.key), keyId: ring.current.id, iv: freshIv(), plain, associatedData });
}

/**
 * The envelope, `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url), of `plain` encrypted with AES-256-GCM
 * under `key`, `associatedData` bound to it. Self-contained (it uses nothing but its arguments and
 * Buffer): the sealing thread runs this same function from its source (sealing-thread.ts), so the
 * envelope has one implementation.
 */
export function sealEnvelope(
  cryptoModule: typeof crypto,
  { key, keyId, iv, plain, associatedData }: { key: crypto.KeyObject; keyId: string; iv: Buffer; plain: string; associatedData: string },
): string {
  const cipher = cryptoModule.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return ["v1", keyId, iv.toString("base64url"), tag.toString("base64url"), ct.toString("base64url")].join(".");
}

/** Thrown when an envelope cannot be decrypted (unknown key id, tampering, wrong context). */
export class SecretDecryptionError extends Error {}

/** Decrypts an envelope made by `encryptSecret` with the same associated data. */
export function decryptSecret(ring: KeyRing, envelope: string, associatedData = ""): string {
  const [version, keyId, iv, tag, ct] = envelope.split(".");
  if (version !== "v1" || !keyId || !iv || !tag || ct === undefined) {
    throw new SecretDecryptionError("Not a Ferry secret envelope");
  }
  const key = ring.all.get(keyId);
  if (!key) throw new SecretDecryptionError(`No key "${keyId}" to decrypt this secret`);
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretDecryptionError("Secret could not be decrypted (wrong key or altered value)");
  }
}

/** The key id an envelope was sealed with (to find values due for re-encryption). */
export function envelopeKeyId(envelope: string): string | undefined {
  return envelope.split(".")[1];
}

/** A masked view of a secret for screens: never more than the last four characters. */
export function maskSecret(plain: string): string {
  if (plain.length <= 8) return "••••";
  return `••••${plain.slice(-4)}`;
}
