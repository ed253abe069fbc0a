/**
 * Many secrets encrypted on a thread of their own while the caller goes on: a token file's
 * credential maps, 100,000 of them, while the file is still being read (the AES-GCM calls are about
 * half a second of a 100,000-row intake's work on one thread). The envelope is encryptSecret's own:
 * the thread runs `sealEnvelope` from its source, with the ring's current key.
 *
 * Synchronous on the caller's side, so a transaction body that cannot await can use it
 * (db/database.ts): `post` hands a batch over and returns at once; `take` returns the oldest batch
 * posted and not yet taken, sealed, waiting (Atomics.wait on a shared counter the thread bumps) only
 * while it is not ready. The thread has its own random IVs and holds nothing once a batch is sealed.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { sealEnvelope, type KeyRing } from "./secrets";

/** One secret to seal: its plain text and the associated data that binds it to its row. */
export type SecretToSeal = { plain: string; context: string };

export type SealingThread = {
  /** Hands a batch to the thread; returns at once. */
  post(secrets: readonly SecretToSeal[]): void;
  /** The oldest batch posted and not yet taken, sealed in order (waits while the thread is on it). */
  take(): string[];
  /** Waits for every batch posted and not yet taken, and drops them (a reading started again from the start). */
  discard(): void;
  /** Ends the thread (what was not taken is dropped). */
  close(): void;
};

/** How long `take` waits for a batch before it gives up on the thread. */
const TAKE_TIMEOUT_MS = 30_000;

// The thread's program: plain JavaScript, run with `eval` so no file has to be found at run time
// (the app runs bundled). It receives its port, the key and the shared counter as workerData.
const SOURCE = `
const { workerData } = require("node:worker_threads");
const crypto = require("node:crypto");
const sealEnvelope = (${sealEnvelope.toString()});
const { port, keyId, key, counter } = workerData;
const keyObject = crypto.createSecretKey(Buffer.from(key));
const sealed = new Int32Array(counter);
port.on("message", ({ plains, contexts }) => {
  const ivs = crypto.randomBytes(12 * plains.length);
  const out = new Array(plains.length);
  for (let i = 0; i < plains.length; i++) out[i] = sealEnvelope(crypto, { key: keyObject, keyId, iv: ivs.subarray(i * 12, i * 12 + 12), plain: plains[i], associatedData: contexts[i] });
  port.postMessage(out);
  Atomics.add(sealed, 0, 1);
  Atomics.notify(sealed, 0);
});
`;

/** Starts a sealing thread for the ring's current key. Close it when done. */
export function startSealingThread(ring: KeyRing): SealingThread {
  const { port1, port2 } = new MessageChannel();
  const counter = new SharedArrayBuffer(4);
  const sealed = new Int32Array(counter);
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: { port: port2, keyId: ring.current.id, key: new Uint8Array(ring.current.key), counter },
    transferList: [port2],
  });
  // Neither keeps the process alive; `close` ends them.
  worker.unref();
  port1.unref();
  let posted = 0;
  let taken = 0;
  const thread: SealingThread = {
    post(secrets) {
      port1.postMessage({ plains: secrets.map((s) => s.plain), contexts: secrets.map((s) => s.context) });
      posted += 1;
    },
    take() {
      if (taken >= posted) throw new Error("Nothing was posted to the sealing thread to take.");
      for (;;) {
        const received = receiveMessageOnPort(port1);
        if (received) {
          taken += 1;
          return received.message as string[];
        }
        const done = Atomics.load(sealed, 0);
        if (done > taken) continue;
        if (Atomics.wait(sealed, 0, done, TAKE_TIMEOUT_MS) === "timed-out") throw new Error("The sealing thread did not answer.");
      }
    },
    discard() {
      while (taken < posted) thread.take();
    },
    close() {
      port1.close();
      void worker.terminate();
    },
  };
  return thread;
}
