import { readFile } from "node:fs/promises";
import { callApi, type Problem, type Schemas } from "@svc/client";
import { CliError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import { wantsJson, type OutputChoice } from "../../output";
import { progressBar } from "../../progress-bar";
import type { Session } from "../../session";
import { describeProblem, exitCodeFor, unreachable } from "../../api-access";
import { formatTable } from "../../format-table";

// `svcctl events post --file events.ndjson` (docs/svcctl.md): one event per line, sent with
// POST /v1/events/batch in batches (500 by default). A batch the body limit refuses (413) is split
// in halves and sent again. Lines that are not JSON objects are reported without being sent.

export interface FileOptions extends OutputChoice {
  batchSize: number;
}

interface Line {
  /** 1-based line number in the file. */
  line: number;
  event: Schemas["EventCreate"];
}

interface LineError {
  line: number;
  status: number | null;
  title: string;
  detail: string;
}

interface Summary {
  lines: number;
  accepted: number;
  duplicates: number;
  failed: number;
  errors: LineError[];
}

export async function postEventsFromFile(s: Session, file: string, options: FileOptions): Promise<void> {
  const text = await readInput(s, file);
  const summary: Summary = { lines: 0, accepted: 0, duplicates: 0, failed: 0, errors: [] };
  const events = parseLines(text, summary);
  const api = s.api();
  const bar = progressBar(s.io.stderr, events.length, "events");
  let sent = 0;
  bar.update(0);
  try {
    for (let i = 0; i < events.length; i += options.batchSize) {
      const chunk = events.slice(i, i + options.batchSize);
      await sendBatch(api, chunk, summary);
      sent += chunk.length;
      bar.update(sent);
    }
  } catch (error) {
    bar.finish();
    if (error instanceof CliError && sent > 0) {
      throw new CliError(
        error.exitCode,
        `${error.message} (after ${sent} of ${events.length} events were sent)`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  bar.finish();
  summary.errors.sort((a, b) => a.line - b.line);
  printSummary(s, options, summary);
  if (summary.failed > 0) {
    throw new CliError(EXIT.failure, `${summary.failed} of ${summary.lines} events were refused`);
  }
}

async function readInput(s: Session, file: string): Promise<string> {
  if (file !== "-") {
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      throw new CliError(EXIT.usage, `cannot read ${file}: ${(error as Error).message}`);
    }
  }
  if (!s.io.stdin) throw new CliError(EXIT.usage, "no standard input to read events from");
  let text = "";
  for await (const chunk of s.io.stdin) text += String(chunk);
  return text;
}

/** Blank lines are skipped; a line that is not a JSON object is counted as failed, not sent. */
function parseLines(text: string, summary: Summary): Line[] {
  const events: Line[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    summary.lines++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      return refuseLocally(summary, line, `not JSON (${(error as Error).message})`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      return refuseLocally(summary, line, "expected a JSON object (one event per line)");
    }
    events.push({ line, event: parsed as Schemas["EventCreate"] });
  });
  return events;
}

function refuseLocally(summary: Summary, line: number, detail: string): void {
  summary.failed++;
  summary.errors.push({ line, status: null, title: "Not sent", detail });
}

async function sendBatch(api: ReturnType<Session["api"]>, chunk: Line[], summary: Summary): Promise<void> {
  let result;
  try {
    result = await callApi(
      api.client.POST("/v1/events/batch", { body: { events: chunk.map((l) => l.event) } }),
    );
  } catch (error) {
    throw unreachable(api.url, error);
  }
  if (!result.ok) {
    if (result.status === 413 && chunk.length > 1) {
      const half = Math.ceil(chunk.length / 2);
      await sendBatch(api, chunk.slice(0, half), summary);
      await sendBatch(api, chunk.slice(half), summary);
      return;
    }
    if (result.status === 413) {
      summary.failed++;
      summary.errors.push(lineError(chunk[0]!.line, result.problem));
      return;
    }
    throw new CliError(exitCodeFor(result.status), describeProblem(result.problem), {
      cause: result.problem,
    });
  }
  result.data.results.forEach((item, i) => {
    const line = chunk[i]!.line;
    if ("event" in item) {
      if (item.status === 200) summary.duplicates++;
      else summary.accepted++;
      return;
    }
    summary.failed++;
    summary.errors.push(lineError(line, item.problem));
  });
}

/** An item's problem, its places named from the event (`name`, not `body.events.3.name`). */
function lineError(line: number, problem: Problem): LineError {
  const issues = (problem.errors ?? []).map((issue) => {
    const loc = issue.loc[0] === "body" && issue.loc[1] === "events" ? issue.loc.slice(3) : issue.loc;
    return `${loc.length > 0 ? loc.join(".") : "event"}: ${issue.msg}`;
  });
  return {
    line,
    status: problem.status,
    title: problem.title,
    detail: issues.length > 0 ? issues.join("; ") : problem.detail,
  };
}

function printSummary(s: Session, options: OutputChoice, summary: Summary): void {
  if (wantsJson(s, options)) return s.out(JSON.stringify(summary, null, 2));
  s.out(
    `${summary.lines} events: ${summary.accepted} accepted, ${summary.duplicates} duplicates, ${summary.failed} failed`,
  );
  if (summary.errors.length === 0) return;
  const rows = summary.errors.map((e) => [
    String(e.line),
    e.status === null ? "-" : String(e.status),
    e.detail,
  ]);
  for (const line of formatTable([["line", "status", "error"], ...rows])) s.out(line);
}
