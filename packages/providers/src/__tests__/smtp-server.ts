// A real SMTP server (smtp-server) on 127.0.0.1 that keeps every message it accepts, raw.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

export interface TestSmtpServer {
  port: number;
  mails: ReceivedMail[];
  /** Reply code per recipient address, to refuse it at RCPT TO. */
  rcptReplies: Map<string, number>;
  close(): Promise<void>;
}

function smtpError(code: number): Error {
  return Object.assign(new Error(code < 500 ? "Try again later" : "Mailbox unavailable"), {
    responseCode: code,
  });
}

export async function startSmtpServer(
  credentials = { username: "svc", password: "smtp-pass" },
): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const rcptReplies = new Map<string, number>();
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.username && auth.password === credentials.password) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error("Invalid credentials"), { responseCode: 535 }));
      }
    },
    onRcptTo(address, _session, callback) {
      const code = rcptReplies.get(address.address);
      callback(code ? smtpError(code) : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const from = session.envelope.mailFrom;
        mails.push({
          from: from ? from.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          user: typeof session.user === "string" ? session.user : undefined,
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return {
    port,
    mails,
    rcptReplies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header fields of a raw message (or MIME part), unfolded, by lower-case name. */
export function headersOf(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? "";
  const fields = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}

export interface MimePart {
  headers: Map<string, string>;
  body: string;
}

/** The parts of a multipart message, bodies decoded from quoted-printable or base64. */
export function partsOf(raw: string): MimePart[] {
  const boundary = /boundary="?([^";]+)"?/.exec(headersOf(raw).get("content-type") ?? "")?.[1];
  if (!boundary) return [];
  return raw
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((chunk) => {
      const part = chunk.replace(/^\r?\n/, "");
      const headers = headersOf(part);
      const encoded = part
        .slice(part.search(/\r?\n\r?\n/))
        .replace(/^\r?\n\r?\n/, "")
        .replace(/\r?\n$/, "");
      return { headers, body: decode(encoded, headers.get("content-transfer-encoding")) };
    });
}

function decode(body: string, encoding: string | undefined): string {
  if (encoding === "quoted-printable") {
    const bytes = body
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8").replace(/\r\n/g, "\n");
  }
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8").replace(/\r\n/g, "\n");
  return body.replace(/\r\n/g, "\n");
}
