/** One-time tokens (invitation links): random, shown once, stored only as a SHA-256 hash. */
import crypto from "node:crypto";

/** A new URL-safe token with 256 bits of entropy. */
export function newToken(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** The stored form of a token. */
export function hashToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}
