import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { createTestDb, type TestDb } from "@/server/testing/test-db";
import { sendMail } from "./mailer";

/** A minimal real SMTP server on loopback that records what it receives. */
function startSmtp(): Promise<{ port: number; messages: string[]; close: () => Promise<void> }> {
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    let inData = false;
    let data = "";
    let buf = "";
    socket.write("220 test ESMTP\r\n");
    socket.on("data", (chunk) => {
      buf += chunk.toString("utf8");
      let i: number;
      while ((i = buf.indexOf("\r\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            messages.push(data);
            data = "";
            socket.write("250 queued\r\n");
          } else data += `${line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === "EHLO" || cmd === "HELO") socket.write("250 test\r\n");
        else if (cmd === "DATA") {
          inData = true;
          socket.write("354 go\r\n");
        } else if (cmd === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ port, messages, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

let t: TestDb;
beforeEach(() => {
  t = createTestDb();
});
afterEach(() => t.close());

describe("mail", () => {
  it("without SMTP, lands in the outbox and the log", async () => {
    const log: string[] = [];
    await sendMail(t.db, { from: "Ferry <f@test>", log: (l) => log.push(l) }, { to: "x@test", subject: "Hi", text: "Body" });
    expect(t.db.select().from(mailOutbox).all()).toMatchObject([{ to: "x@test", transport: "outbox", error: null }]);
    expect(log[0]).toContain('subject="Hi"');
  });

  it("with SMTP_URL, is really sent and recorded as sent", async () => {
    const smtp = await startSmtp();
    try {
      const res = await sendMail(
        t.db,
        { smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: "Ferry <f@test>" },
        { to: "y@test", subject: "Invite", text: "Link inside" },
      );
      expect(res.delivered).toBe(true);
      expect(smtp.messages[0]).toContain("Subject: Invite");
      expect(smtp.messages[0]).toContain("Link inside");
      const [row] = t.db.select().from(mailOutbox).all();
      expect(row).toMatchObject({ transport: "smtp", error: null });
      expect(row!.sentAt).toBeInstanceOf(Date);
    } finally {
      await smtp.close();
    }
  });

  it("keeps the message and the SMTP error when delivery fails", async () => {
    const res = await sendMail(t.db, { smtpUrl: "smtp://127.0.0.1:1", from: "f@test" }, { to: "z@test", subject: "S", text: "T" });
    expect(res.delivered).toBe(false);
    const [row] = t.db.select().from(mailOutbox).all();
    expect(row!.sentAt).toBeNull();
    expect(row!.error).toMatch(/ECONNREFUSED|connect/i);
  });
});
