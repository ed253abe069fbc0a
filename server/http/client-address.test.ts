import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { SOCKET_ADDRESS_HEADER as SERVER_HEADER, tagSocketAddress } from "@/scripts/socket-address.mjs";
import { clientAddress, normalizeAddress, SOCKET_ADDRESS_HEADER } from "./client-address";

/** What the app would see for one real HTTP request through Ferry's web server's tagging. */
async function headersSeenByApp(send: Record<string, string>): Promise<http.IncomingHttpHeaders> {
  let seen: http.IncomingHttpHeaders = {};
  const server = http.createServer((req, res) => {
    tagSocketAddress(req);
    seen = req.headers;
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await (await fetch(`http://127.0.0.1:${port}/`, { headers: send })).text();
    return seen;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("the client address", () => {
  it("is the socket's, whatever X-Forwarded-For or the socket header the client sends", async () => {
    const headers = await headersSeenByApp({ "x-forwarded-for": "203.0.113.7", [SOCKET_ADDRESS_HEADER]: "198.51.100.1" });
    expect(SERVER_HEADER).toBe(SOCKET_ADDRESS_HEADER);
    expect(clientAddress({ headers, trustProxyHops: 0, socketHeaderTrusted: true })).toBe("127.0.0.1");
  });

  it("is unknown without Ferry's web server (a client could have written the header)", () => {
    const headers = new Headers({ [SOCKET_ADDRESS_HEADER]: "198.51.100.1", "x-forwarded-for": "203.0.113.7" });
    expect(clientAddress({ headers, trustProxyHops: 0, socketHeaderTrusted: false })).toBeNull();
  });

  it("behind N proxies, is the address the outermost trusted proxy appended, not the client's claims", () => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.7, 198.51.100.20, 10.0.0.2", [SOCKET_ADDRESS_HEADER]: "10.0.0.3" });
    expect(clientAddress({ headers, trustProxyHops: 1, socketHeaderTrusted: true })).toBe("10.0.0.2");
    expect(clientAddress({ headers, trustProxyHops: 2, socketHeaderTrusted: true })).toBe("198.51.100.20");
    // Fewer entries than proxies: the furthest one there is.
    expect(clientAddress({ headers, trustProxyHops: 5, socketHeaderTrusted: true })).toBe("203.0.113.7");
    expect(clientAddress({ headers: new Headers(), trustProxyHops: 1, socketHeaderTrusted: true })).toBeNull();
  });

  it("takes repeated X-Forwarded-For headers as one list", () => {
    expect(clientAddress({ headers: { "x-forwarded-for": ["203.0.113.7", "10.0.0.2"] }, trustProxyHops: 1, socketHeaderTrusted: false })).toBe("10.0.0.2");
  });

  it("accepts only IP addresses, IPv4-mapped ones written as IPv4", () => {
    expect(normalizeAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(normalizeAddress("x".repeat(5000))).toBeNull();
    expect(normalizeAddress("unknown")).toBeNull();
    expect(normalizeAddress(undefined)).toBeNull();
  });
});
