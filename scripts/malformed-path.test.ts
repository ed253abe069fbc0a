/**
 * A malformed percent-escape in a request's path answers 400 in Ferry's web server, over real HTTP:
 * the server below puts the guard in front of a handler that decodes the path as Next's router does
 * (and fails with a 500 on `%ff`). e2e/refused-pages.spec.ts asks the built app the same.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasMalformedEscape, refuseMalformedPath } from "./malformed-path.mjs";

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (refuseMalformedPath(req, res)) return;
    try {
      const path = decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/");
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(path);
    } catch {
      res.writeHead(500);
      res.end("Internal Server Error");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** GET with the path sent exactly as written (fetch would not re-encode it, but http.get is plainer). */
const get = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      })
      .on("error", reject);
  });

describe("a malformed percent-escape in the path", () => {
  it("answers 400 with the security headers, signed in or not, on pages, API routes and tRPC", async () => {
    for (const path of ["/api/engagements/%ff/handover-report", "/api/trpc/%ff", "/engagements/%ff", "/portal/engagements/%ff", "/engagements/%zz", "/admin/%", "/engagements/%c3%28?tab=activity"]) {
      for (const headers of [{}, { cookie: "next-auth.session-token=some-session" }] as Record<string, string>[]) {
        const answer = await get(path, headers);
        expect([path, answer.status]).toEqual([path, 400]);
        expect(answer.body).toContain("malformed percent-escape");
        expect(answer.headers).toMatchObject({ "x-content-type-options": "nosniff", "x-frame-options": "DENY", "cache-control": "no-store" });
      }
    }
  });

  it("leaves well-formed escapes, and a malformed one in the query only, to the app", async () => {
    expect(await get("/engagements/caf%C3%A9")).toMatchObject({ status: 200, body: "/engagements/café" });
    expect(await get("/engagements/a%2Fb?q=%ff")).toMatchObject({ status: 200, body: "/engagements/a/b" });
    expect(hasMalformedEscape("/x?%ff")).toBe(false);
    expect(hasMalformedEscape(undefined)).toBe(false);
  });
});
