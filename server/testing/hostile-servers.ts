/**
 * Real local HTTP(S) servers that answer as a hostile or broken service target would: every request
 * redirected, an endless answer, a gzip bomb. Each counts what it received and sent, on port 0 of
 * 127.0.0.1. Big answers are streamed from one small buffer as the client reads (backpressure), so
 * the test process never holds them.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

export type Hostile = {
  url: string;
  port: number;
  /** Requests received (method and path). */
  requests: { method: string; url: string; body: string }[];
  /** Body bytes written to the sockets so far (before compression is undone: as sent). */
  bytesSent(): number;
  close(): Promise<void>;
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, count: (n: number) => void) => void;

async function listen(server: http.Server | https.Server, scheme: "http" | "https", requests: Hostile["requests"], sent: () => number): Promise<Hostile> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    bytesSent: sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each request's body as received (read before the handler runs), for a handler that passes it on. */
const serveRequests = new WeakMap<http.IncomingMessage, Buffer>();

function serve(handler: Handler, tls?: { key: string; cert: string }): Promise<Hostile> {
  const requests: Hostile["requests"] = [];
  let bytes = 0;
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      serveRequests.set(req, body);
      requests.push({ method: req.method ?? "", url: req.url ?? "", body: body.toString() });
      handler(req, res, (n) => (bytes += n));
    });
  };
  const server = tls ? https.createServer(tls, onRequest) : http.createServer(onRequest);
  return listen(server, tls ? "https" : "http", requests, () => bytes);
}

/** A server that answers every request with `status` and a Location (each request's path appended to `to`). */
export function redirectingServer(params: { to: string; status: number | ((n: number) => number); tls?: { key: string; cert: string } }): Promise<Hostile> {
  let n = 0;
  return serve((req, res) => {
    const status = typeof params.status === "function" ? params.status(n++) : params.status;
    res.writeHead(status, { location: `${params.to}${req.url ?? "/"}`, "content-type": "text/html" });
    res.end(`<a href="${params.to}">moved</a>`);
  }, params.tls);
}

/**
 * A proxy in front of `upstream` (e.g. the sandbox) that passes every request on, except those
 * `redirect` picks, which it answers 307 to `to` (the request's path appended): a target that
 * redirects only the call carrying the tokens.
 */
export function redirectingProxy(params: { upstream: string; to: string; redirect: (req: http.IncomingMessage) => boolean }): Promise<Hostile> {
  const upstream = new URL(params.upstream);
  return serve((req, res) => {
    if (params.redirect(req)) {
      res.writeHead(307, { location: `${params.to}${req.url ?? "/"}` });
      res.end();
      return;
    }
    const last = serveRequests.get(req);
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: `${upstream.pathname.replace(/\/$/, "")}${req.url ?? "/"}`, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    forward.end(last);
  });
}

/** Writes `total` bytes of `chunk` repeated, as fast as the client reads, stopping when it goes away. */
function stream(res: http.ServerResponse, chunk: Buffer, total: number, count: (n: number) => void): void {
  let left = total;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      count(piece.length);
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    if (left <= 0) res.end();
  };
  res.on("close", () => (left = 0));
  pump();
}

/** A 200 JSON answer of `megabytes` MB (`[1` and spaces: a client that read it all would still find no end), with its length declared or not. */
export function hugeAnswerServer(params: { megabytes: number; declareLength: boolean }): Promise<Hostile> {
  const total = params.megabytes * 1024 * 1024;
  const spaces = Buffer.alloc(64 * 1024, " ");
  return serve((_req, res, count) => {
    res.writeHead(200, { "content-type": "application/json", ...(params.declareLength ? { "content-length": String(total + 3) } : {}) });
    res.write("[1");
    count(2);
    stream(res, spaces, total, count);
  });
}

/**
 * A 200 gzip answer that is small on the wire and huge inflated: `megabytes` gzip members of 1 MB
 * of spaces each (about 1 KB compressed apiece; a gzip stream may hold many members).
 */
export function gzipBombServer(params: { megabytes: number }): Promise<Hostile & { compressedBytes: number }> {
  const member = zlib.gzipSync(Buffer.alloc(1024 * 1024, " "), { level: 9 });
  const compressedBytes = member.length * params.megabytes;
  return serve((_req, res, count) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "content-length": String(compressedBytes) });
    let left = params.megabytes;
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        left -= 1;
        count(member.length);
        if (!res.write(member)) return void res.once("drain", pump);
      }
      if (left <= 0) res.end();
    };
    res.on("close", () => (left = 0));
    pump();
  }).then((h) => ({ ...h, compressedBytes }));
}

/** A server that answers every request with `status` and a JSON body (e.g. an error body). */
export function answeringServer(params: { status: number; body: unknown; headers?: Record<string, string> }): Promise<Hostile> {
  return serve((_req, res) => {
    res.writeHead(params.status, { "content-type": "application/json", ...params.headers });
    res.end(JSON.stringify(params.body));
  });
}

/** A self-signed certificate for 127.0.0.1 made with openssl, its key and its PEM (trusted by passing it as `ca`). */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ferry-tls-"));
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")],
      { stdio: "ignore" },
    );
    return { key: readFileSync(path.join(dir, "key.pem"), "utf8"), cert: readFileSync(path.join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
