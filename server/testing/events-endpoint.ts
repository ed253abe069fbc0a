/**
 * Ferry's webhook endpoint (server/targets/events/receiver.ts) served by a plain Node HTTP server on
 * a random port, for tests and benches that run no Next server: the same function the route calls
 * (answerDeliveryRequest, given the request's body as a stream),
 * over real HTTP. `down()` stops answering (connections refused) and `up()` listens again on the
 * same port, as an endpoint that went down and came back. Every answer's time is kept (the bench's
 * receiver p99).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Database } from "@/db/database";
import type { KeyRing } from "@/server/security/secrets";
import { answerDeliveryRequest } from "@/server/targets/events/receiver";

export type EventsEndpoint = {
  /** Ferry's public base URL as the sandbox reaches it (the target's endpoint is below it). */
  baseUrl: string;
  /** Answers by status, and each answer's time in ms. */
  answers: Map<number, number>;
  durationsMs: number[];
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
};

export async function startEventsEndpoint(params: { database: Database; ring: KeyRing }): Promise<EventsEndpoint> {
  const answers = new Map<number, number>();
  const durationsMs: number[] = [];
  const server = http.createServer((req, res) => {
    const started = performance.now();
    const match = /^\/api\/targets\/([^/]+)\/events$/.exec(req.url ?? "");
    if (req.method !== "POST" || !match?.[1]) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    // The body streamed as the route's Request streams it (a chunked one read only up to the limit).
    const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } as RequestInit);
    answerDeliveryRequest(params.database, params.ring, decodeURIComponent(match[1]), request)
      .then(async (answer) => {
        answers.set(answer.status, (answers.get(answer.status) ?? 0) + 1);
        durationsMs.push(performance.now() - started);
        res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch(() => res.writeHead(500).end());
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { baseUrl: `http://127.0.0.1:${port}`, answers, durationsMs, down: stop, up: () => listen(port), close: async () => (server.listening ? stop() : undefined) };
}
