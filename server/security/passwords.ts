/**
 * Password hashing with scrypt (N=2^15, r=8, p=1, 16-byte salt, 32-byte hash), stored as
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` so parameters can be raised later without breaking old hashes.
 */
import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

const N = 2 ** 15;
const R = 8;
const P = 1;
const MAXMEM = 64 * 1024 * 1024;

/** The rules a new password must meet, in words for forms. */
export const PASSWORD_RULES = "at least 10 characters";

/** Returns a problem with the password, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10) return `Password must be ${PASSWORD_RULES}.`;
  if (password.length > 200) return "Password must be at most 200 characters.";
  return null;
}

/** Hashes a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize("NFKC"), salt, 32, { N, r: R, p: P, maxmem: MAXMEM });
  return ["scrypt", N, R, P, salt.toString("base64"), hash.toString("base64")].join("$");
}

/** Checks a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split("$");
  if (alg !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash of a password nobody knows, to keep sign-in timing the same for unknown emails. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(crypto.randomBytes(16).toString("hex"));
  return decoy;
}
