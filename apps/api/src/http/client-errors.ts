import { maxHeaderSize, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { STATUS_TITLE } from "@svc/core";

// Requests Node's own HTTP parser refuses before Express sees them (a 100 kB URL, a 40 kB header,
// a malformed request line) are answered as problem+json like every other error (docs/api.md
// "Errors"), not with Node's bare status line and empty body. The statuses are Node's own.

const STATUS_BY_CODE: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const TITLES: Record<number, string> = {
  ...STATUS_TITLE,
  408: "Request timeout",
  431: "Request header fields too large",
};

const DETAILS: Record<number, string> = {
  400: "The request is not valid HTTP",
  408: "The request did not arrive in time",
  413: "A chunk extension of the request body is too large",
  431: `The request line and headers together are larger than ${maxHeaderSize} bytes`,
};

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
};

/** The raw HTTP/1.1 answer for a parser error with this `code`. */
function clientErrorResponse(code: string | undefined): string {
  const status = (code && STATUS_BY_CODE[code]) || 400;
  const body = JSON.stringify({
    type: "about:blank",
    title: TITLES[status],
    status,
    detail: DETAILS[status],
  });
  return [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    "Content-Type: application/problem+json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Answers the server's client errors as problem+json (for the API's listening server). */
export function answerClientErrorsAsProblems(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already on its way (keep-alive) must not be corrupted: only close then.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(error.code));
  });
}
