// Ferry's web server: Next.js (the production build, or `--dev`) behind a plain node:http server
// that writes each request's socket address into a header of its own before Next sees it. Next
// keeps a client's X-Forwarded-For as sent, so without this the app could not tell the client's
// real address (sign-in throttling needs it). `npm start`, `npm run web` and the e2e server use it.
//   node scripts/web-server.mjs [--dev] [-p PORT] [-H HOST]
import http from "node:http";
import { ROOT } from "./lib.mjs";
import { markServedByFerry, tagSocketAddress } from "./socket-address.mjs";

const arg = (flag) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dev = process.argv.includes("--dev");
const port = Number(arg("-p") ?? process.env.PORT ?? 3000);
const host = arg("-H") ?? process.env.HOST;

// As `next start` / `next dev` do; set before Next loads.
process.env.NODE_ENV ??= dev ? "development" : "production";
const { default: next } = await import("next");
markServedByFerry();
const app = next({ dev, dir: ROOT, hostname: host ?? "localhost", port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  tagSocketAddress(req);
  handle(req, res);
});
if (dev) server.on("upgrade", app.getUpgradeHandler());
server.listen(port, host, () => console.log(`Ferry web ${dev ? "(dev) " : ""}listening on http://${host ?? "localhost"}:${port}`));

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
