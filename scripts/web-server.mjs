// Ferry's web server: Next.js (the production build, or `--dev`) behind a plain node:http server
// that writes each request's socket address into a header of its own before Next sees it. Next
// keeps a client's X-Forwarded-For as sent, so without this the app could not tell the client's
// real address (sign-in throttling needs it). `npm start`, `npm run web` and the e2e server use it.
//   node scripts/web-server.mjs [--dev] [-p PORT] [-H HOST]
// It listens on 127.0.0.1 unless HOST (or -H) names another interface: 0.0.0.0 (or ::) for every
// one, when browsers reach this machine directly; behind a reverse proxy on the same machine the
// default is the right one.
import http from "node:http";
import net from "node:net";
import { ROOT } from "./lib.mjs";
import { refuseMalformedPath } from "./malformed-path.mjs";
import { markServedByFerry, tagSocketAddress } from "./socket-address.mjs";

const arg = (flag) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dev = process.argv.includes("--dev");
const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const host = arg("-H") ?? (process.env.HOST || "127.0.0.1");
if (!net.isIP(host) && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host)) {
  console.error(`Ferry cannot start. HOST must be an address or host name to listen on (127.0.0.1, or 0.0.0.0 for every interface), not "${host}".`);
  process.exit(1);
}
const shownHost = net.isIPv6(host) ? `[${host}]` : host;

// As `next start` / `next dev` do; set before Next loads.
process.env.NODE_ENV ??= dev ? "development" : "production";
const { default: next } = await import("next");
markServedByFerry();
const app = next({ dev, dir: ROOT, hostname: host, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  // `/engagements/%ff` and the like: 400 here, not a 500 from Next's decoding.
  if (refuseMalformedPath(req, res)) return;
  tagSocketAddress(req);
  handle(req, res);
});
if (dev) server.on("upgrade", app.getUpgradeHandler());
server.on("error", (error) => {
  console.error(`Ferry cannot start. It cannot listen on ${shownHost}:${port} (HOST, PORT): ${error.message}`);
  process.exit(1);
});
server.listen(port, host, () => console.log(`Ferry web ${dev ? "(dev) " : ""}listening on http://${shownHost}:${port}`));

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  app.close().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
