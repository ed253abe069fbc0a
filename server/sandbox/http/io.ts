/**
 * Low-level HTTP helpers: reading a bounded body (5 MB), discarding what is left of one after an
 * early answer, parsing JSON leniently about emptiness (the SDK sends `content-type:
 * application/json` with empty bodies), and writing responses.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, payloadTooLarge, type ServiceName } from "./errors";

/** What a handler returns; the server adds the correlation id and rate-limit headers. */
export type ApiResponse = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
};

/** The largest request body the sandbox reads: 5 MB. A larger one answers 413. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The most the sandbox discards of a body it refused (unread bodies are drained so a keep-alive
 * connection stays usable); past this the connection is cut instead.
 */
const MAX_DISCARD_BYTES = 4 * MAX_BODY_BYTES;

/** Thrown while reading a body when the client closed the connection before sending all of it. */
export class ClientGoneError extends Error {
  constructor() {
    super("The client closed the connection before the request was read.");
  }
}

/**
 * Reads the whole request body. Rejects with a 413 ApiError as soon as it is known to be over
 * MAX_BODY_BYTES (a declared Content-Length, or the bytes streamed so far), and with
 * ClientGoneError when the connection closes first.
 */
export function readBody(req: IncomingMessage, service: ServiceName): Promise<Buffer> {
  const length = req.headers["content-length"];
  if (length === "0" || (length === undefined && req.headers["transfer-encoding"] === undefined)) {
    return Promise.resolve(Buffer.alloc(0));
  }
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) return Promise.reject(payloadTooLarge(MAX_BODY_BYTES, service));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      cleanUp();
      reject(payloadTooLarge(MAX_BODY_BYTES, service));
    };
    const onEnd = () => {
      cleanUp();
      resolve(Buffer.concat(chunks));
    };
    const onGone = () => {
      cleanUp();
      reject(new ClientGoneError());
    };
    const cleanUp = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onGone);
      req.off("close", onGone);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    // A request stream fails only when its connection does ("aborted", ECONNRESET).
    req.on("error", onGone);
    req.on("close", onGone);
  });
}

/**
 * Throws away what is left of a request body after an early answer, so the connection can carry
 * the next request; a body too large to be worth reading closes the connection instead.
 */
export function discardBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_DISCARD_BYTES) {
    req.socket.destroySoon();
    return;
  }
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARD_BYTES) req.socket.destroy();
  });
  req.on("error", () => {});
  req.resume();
}

/** Parses a JSON body; an empty (or all-whitespace) body is `undefined`, not an error. */
export function parseJsonBody(raw: Buffer): unknown {
  const text = raw.toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : "unreadable";
    throw badRequest([{ itemId: "body", message: `The request body is not valid JSON: ${detail}` }]);
  }
}

/** Writes a response: JSON bodies with `application/json`; no body and no content type otherwise. */
export function writeResponse(res: ServerResponse, params: { status: number; body?: unknown; headers: Record<string, string> }): void {
  if (params.body === undefined) {
    res.writeHead(params.status, params.headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(params.body);
  res.writeHead(params.status, {
    ...params.headers,
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

/** True for plain JSON objects (not arrays, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
