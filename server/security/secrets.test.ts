import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, envelopeKeyId, generateKeySpec, keyRingFrom, maskSecret, SecretDecryptionError } from "./secrets";

describe("secrets at rest", () => {
  const ring = keyRingFrom(generateKeySpec("k1"));

  it("round-trips, with a fresh IV every time and no plain text in the envelope", () => {
    const a = encryptSecret(ring, "client-secret-value", "ctx");
    const b = encryptSecret(ring, "client-secret-value", "ctx");
    expect(a).not.toBe(b);
    expect(a).not.toContain("client-secret-value");
    expect(envelopeKeyId(a)).toBe("k1");
    expect(decryptSecret(ring, a, "ctx")).toBe("client-secret-value");
  });

  it("refuses an altered envelope or another context", () => {
    const env = encryptSecret(ring, "secret", "row:1");
    const parts = env.split(".");
    parts[4] = Buffer.from("tampered").toString("base64url");
    expect(() => decryptSecret(ring, parts.join("."), "row:1")).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(ring, env, "row:2")).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(ring, "not an envelope")).toThrow(SecretDecryptionError);
  });

  it("rotates: values sealed with an old key still open once it is listed as old", () => {
    const old = generateKeySpec("old");
    const sealed = encryptSecret(keyRingFrom(old), "token");
    const rotated = keyRingFrom(generateKeySpec("new"), [old]);
    expect(decryptSecret(rotated, sealed)).toBe("token");
    expect(envelopeKeyId(encryptSecret(rotated, "token"))).toBe("new");
    expect(() => decryptSecret(keyRingFrom(generateKeySpec("new")), sealed)).toThrow(/No key "old"/);
  });

  it("rejects keys that are not 32 bytes", () => {
    expect(() => keyRingFrom("k:c2hvcnQ=")).toThrow(/32 bytes/);
  });

  it("masks to at most the last four characters", () => {
    expect(maskSecret("abcdefghijkl")).toBe("••••ijkl");
    expect(maskSecret("short")).toBe("••••");
  });
});
