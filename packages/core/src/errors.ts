// One error type for the whole service (Documenso-style): code -> HTTP status lives here, the API
// turns it into RFC 9457 problem+json. Workers use the same codes to tell permanent from transient.

export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_state: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const STATUS_TITLE: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Content too large",
  415: "Unsupported media type",
  422: "Unprocessable content",
  429: "Too many requests",
  500: "Internal server error",
  503: "Service unavailable",
};

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface AppErrorOptions {
  /** Overrides the title derived from the status (`Invalid state` for 409 state errors; docs/api.md). */
  title?: string;
  errors?: ValidationIssue[];
  headers?: Record<string, string>;
  /** Extra problem members (RFC 9457 extension members). */
  extra?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;
  readonly errors?: ValidationIssue[];
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
    this.title =
      options.title ?? (code === "invalid_state" ? "Invalid state" : (STATUS_TITLE[this.status] ?? "Error"));
    this.errors = options.errors;
    this.headers = options.headers;
    this.extra = options.extra;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
