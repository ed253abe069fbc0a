/**
 * The sealing thread: its envelopes are encryptSecret's (they open with decryptSecret under the
 * same associated data, and only under it), batches come back in the order they were posted, and
 * the caller never needs the event loop to get them (a transaction body cannot await).
 */
import { afterEach, describe, expect, it } from "vitest";
import { decryptSecret, envelopeKeyId, generateKeySpec, keyRingFrom, SecretDecryptionError } from "./secrets";
import { startSealingThread, type SealingThread } from "./sealing-thread";

const ring = keyRingFrom(generateKeySpec("k-thread"));
let thread: SealingThread | undefined;
afterEach(() => thread?.close());

describe("the sealing thread", () => {
  it("seals batches in the order they were posted, each secret for its own context, without the event loop", () => {
    thread = startSealingThread(ring);
    const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 300 }, (_, i) => ({ plain: `{"token":"secret ${b}-${i} ☕"}`, context: `migration_item:e1:item-${b}-${i}` })));
    // Posted ahead and taken one batch behind, all in one synchronous run, as the intake does.
    const sealed: string[][] = [];
    thread.post(batches[0]!);
    for (let b = 1; b < batches.length; b++) {
      thread.post(batches[b]!);
      sealed.push(thread.take());
    }
    sealed.push(thread.take());
    expect(sealed.map((s) => s.length)).toEqual([300, 300, 300, 300, 300]);
    for (let b = 0; b < batches.length; b++) {
      for (const [i, envelope] of sealed[b]!.entries()) {
        expect(envelopeKeyId(envelope)).toBe("k-thread");
        expect(decryptSecret(ring, envelope, batches[b]![i]!.context)).toBe(batches[b]![i]!.plain);
      }
    }
    // Bound to its row: under another row's context it does not open.
    expect(() => decryptSecret(ring, sealed[0]![0]!, "migration_item:e1:item-0-1")).toThrow(SecretDecryptionError);
    // A fresh IV for every secret.
    const ivs = sealed.flat().map((e) => e.split(".")[2]);
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it("drops the batches not taken when told to, so the next taken is the next posted", () => {
    thread = startSealingThread(ring);
    thread.post([{ plain: "old 1", context: "c" }]);
    thread.post([{ plain: "old 2", context: "c" }]);
    thread.discard();
    thread.post([{ plain: "new", context: "c" }]);
    expect(thread.take().map((e) => decryptSecret(ring, e, "c"))).toEqual(["new"]);
  });

  it("refuses to wait for a batch that was never posted", () => {
    thread = startSealingThread(ring);
    expect(() => thread!.take()).toThrow(/Nothing was posted/);
  });
});
