import { describe, expect, it } from "vitest";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { reconnectLinkToken, reconnectLinkUrl, verifyReconnectLinkToken } from "./reconnect-link";

const ring = keyRingFrom(generateKeySpec("k1"));
const itemId = "3f1c2a64-7a3e-4a38-9a51-0d5d6f1f9b10";

describe("a company's reconnect link", () => {
  it("is stable for the company, differs between companies, and names Ferry's address", () => {
    const url = reconnectLinkUrl({ appUrl: "https://ferry.example/", ring }, itemId);
    expect(url).toBe(reconnectLinkUrl({ appUrl: "https://ferry.example", ring }, itemId));
    expect(url).toMatch(new RegExp(`^https://ferry\\.example/reconnect/${itemId}\\.k1\\.[A-Za-z0-9_-]{32}$`));
    expect(reconnectLinkToken(ring, "another-item")).not.toContain(reconnectLinkToken(ring, itemId).split(".")[2]);
  });

  it("opens for the company it names, and not when forged, altered, cut short or made under another ring", () => {
    const token = reconnectLinkToken(ring, itemId);
    expect(verifyReconnectLinkToken(ring, token)).toBe(itemId);
    const [, keyId, mac] = token.split(".");
    // Another company's id with this company's signature.
    expect(verifyReconnectLinkToken(ring, `11111111-7a3e-4a38-9a51-0d5d6f1f9b10.${keyId}.${mac}`)).toBeNull();
    // One character of the signature changed.
    expect(verifyReconnectLinkToken(ring, `${itemId}.${keyId}.${mac!.slice(0, -1)}${mac!.endsWith("A") ? "B" : "A"}`)).toBeNull();
    expect(verifyReconnectLinkToken(ring, token.slice(0, -1))).toBeNull();
    expect(verifyReconnectLinkToken(ring, `${itemId}.k9.${mac}`)).toBeNull();
    expect(verifyReconnectLinkToken(keyRingFrom(generateKeySpec("k1")), token)).toBeNull();
    for (const junk of ["", "x", "..", `${itemId}`, `${"a".repeat(200)}.k1.${mac}`, `${itemId}.k1.${mac}/../x`]) expect(verifyReconnectLinkToken(ring, junk)).toBeNull();
  });

  it("sent before a key rotation still opens after it (the old key stays in the ring); new ones use the new key", () => {
    const old = generateKeySpec("k1");
    const before = keyRingFrom(old);
    const sent = reconnectLinkToken(before, itemId);
    const after = keyRingFrom(generateKeySpec("k2"), [old]);
    expect(verifyReconnectLinkToken(after, sent)).toBe(itemId);
    expect(reconnectLinkToken(after, itemId)).toMatch(/\.k2\./);
    expect(verifyReconnectLinkToken(keyRingFrom(generateKeySpec("k2")), sent)).toBeNull();
  });
});
