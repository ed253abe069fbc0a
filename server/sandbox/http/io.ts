/**
 * Low-level HTTP helpers: reading a bounded body, parsing JSON leniently about emptiness (the SDK
 * sends `content-type: application/json` with empty bodies), and writing responses.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest } from "./errors";

/** What a handler returns; the server adds the correlation id and rate-limit headers. */
export type ApiResponse = {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
};

export const MAX_BODY_BYTES = 1_048_576;

/** Reads the whole request body, or null when it is over the limit. */
export function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const length = req.headers["content-length"];
  if (length === "0" || (length === undefined && req.headers["transfer-encoding"] === undefined)) {
    return Promise.resolve(Buffer.alloc(0));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Parses a JSON body; an empty (or all-whitespace) body is `undefined`, not an error. */
export function parseJsonBody(raw: Buffer | null): unknown {
  if (raw === null) {
    throw badRequest([{ itemId: "body", message: `The request body is larger than ${MAX_BODY_BYTES} bytes.` }]);
  }
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
