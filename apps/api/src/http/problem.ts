import { STATUS_CODES } from "node:http";
import type { Request, Response } from "express";
import { STATUS_TITLE, type AppError, type ValidationIssue } from "@svc/core";

// RFC 9457 problem details (docs/api.md, "Errors"): one shape, one media type, for every error svc answers.

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

export interface Problem {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: ValidationIssue[];
  [extension: string]: unknown;
}

export interface ProblemInput {
  status: number;
  detail: string;
  title?: string;
  errors?: ValidationIssue[];
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The problem an AppError answers with. */
export function fromAppError(err: AppError): ProblemInput {
  return {
    status: err.status,
    title: err.title,
    detail: err.detail,
    errors: err.errors,
    extra: err.extra,
    headers: err.headers,
  };
}

const titleFor = (status: number): string => STATUS_TITLE[status] ?? STATUS_CODES[status] ?? "Error";

/** The request path without the query string (queries may carry tokens). */
export const requestPath = (req: Request): string => req.originalUrl.split("?")[0] ?? "/";

export function buildProblem(input: ProblemInput, req: Request): Problem {
  return problemAt(input, requestPath(req));
}

/** The problem for `instance` (a path); the MCP tools answer their REST twin's path. */
export function problemAt(input: ProblemInput, instance: string): Problem {
  return {
    ...input.extra,
    type: "about:blank",
    title: input.title ?? titleFor(input.status),
    status: input.status,
    detail: input.detail,
    instance,
    ...(input.errors ? { errors: input.errors } : {}),
  };
}

// Sent as a string so response validation (which wraps res.json) never turns an error into a 500.
export function sendProblem(req: Request, res: Response, input: ProblemInput): void {
  const headers = { ...input.headers };
  // Every 401 names the scheme (docs/api.md, "Authentication").
  if (input.status === 401 && !Object.keys(headers).some((h) => h.toLowerCase() === "www-authenticate")) {
    headers["WWW-Authenticate"] = "Bearer";
  }
  res
    .status(input.status)
    .set(headers)
    .type(PROBLEM_MEDIA_TYPE)
    .send(JSON.stringify(buildProblem(input, req)));
}
