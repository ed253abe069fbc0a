/**
 * Request limits: bodies over 5 MB answer 413 in the service's error shape, and
 * a client that goes away mid-request is not logged as an unexpected error.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicAuth } from "../controls/control-client";
import { call, UUID } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

const MB = 1024 * 1024;

let sb: TestSandbox;
let apiKey: string;
const logLines: string[] = [];

beforeAll(async () => {
  sb = await startTestSandbox({ log: (line) => logLines.push(line) });
  ({ apiKey } = await sb.control.createClient({ plan: "paid" }));
});

afterAll(async () => {
  await sb.close();
});

/** A JSON company body padded with an unknown field to `bytes` bytes. */
function paddedCompany(bytes: number): string {
  const head = '{"name":"Padded Ltd","padding":"';
  return `${head}${"x".repeat(bytes - head.length - 2)}"}`;
}

/** Sends a body with chunked transfer encoding (no Content-Length), as a streaming client would. */
function postChunked(params: { path: string; auth: string; chunks: number; chunkBytes: number }): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${sb.url}${params.path}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { Authorization: params.auth, "Content-Type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      },
    );
    req.on("error", reject);
    const chunk = "x".repeat(params.chunkBytes);
    req.write('{"name":"Streamed","padding":"');
    for (let i = 0; i < params.chunks; i++) req.write(chunk);
    req.end('"}');
  });
}

describe("request body limit", () => {
  it("answers 413 in the error-body shape to a body over 5 MB", async () => {
    const result = await call(sb, { method: "POST", path: "/companies", apiKey, rawBody: paddedCompany(6 * MB) });
    expect(result.status).toBe(413);
    expect(result.headers.get("content-type")).toBe("application/json");
    expect(result.json).toEqual({
      statusCode: 413,
      service: "PublicApi",
      error: "Payload Too Large: the request body is larger than 5 MB (5242880 bytes).",
      correlationId: result.headers.get("x-correlation-id"),
    });
    expect(result.headers.get("x-correlation-id")).toMatch(UUID);
    // The connection was closed, not poisoned: the next request is served.
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);
  });

  it("answers 413 to a streamed body without Content-Length once it passes 5 MB", async () => {
    const result = await postChunked({ path: "/companies", auth: basicAuth(apiKey), chunks: 12, chunkBytes: MB / 2 });
    expect(result.status).toBe(413);
    expect(result.body).toMatchObject({ statusCode: 413, service: "PublicApi", correlationId: expect.stringMatching(UUID) });
  });

  it("caps the controls too, naming them as the service", async () => {
    const result = await call(sb, {
      method: "POST",
      path: "/_sandbox/clients",
      auth: `Bearer ${sb.adminToken}`,
      rawBody: `{"plan":"paid","name":"${"n".repeat(6 * MB)}"}`,
    });
    expect(result.status).toBe(413);
    expect(result.json).toMatchObject({ statusCode: 413, service: "SandboxControls" });
  });

  it("still reads a body under the limit (2 MB)", async () => {
    const result = await call(sb, { method: "POST", path: "/companies", apiKey, rawBody: paddedCompany(2 * MB) });
    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ name: "Padded Ltd" });
  });
});

describe("a client that disconnects mid-request", () => {
  it("is not logged as an unexpected error, and the sandbox keeps serving", async () => {
    const url = new URL(sb.url);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /companies HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${basicAuth(apiKey)}\r\n` +
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n" +
            '{"name":"Half a',
        );
        // The headers and part of the body, then hang up.
        socket.destroy();
        resolve();
      });
      socket.on("error", reject);
    });
    // A full request after the hang-up: the server has handled the closed socket by the time it answers.
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);
    expect((await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "After" } })).status).toBe(200);
    expect(logLines.filter((line) => line.includes("unexpected"))).toEqual([]);
  });
});
