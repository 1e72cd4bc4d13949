import type { ErrorBody, ErrorCode } from "./types.js";

/** The API version this client speaks (annals.APIVersion); the package's major.minor is the same. */
export const API_VERSION = "1.0";
/** The header every answer of the server names its API version in. */
export const API_VERSION_HEADER = "Annals-Api-Version";

/**
 * Every failure of the client: the server's error code and message, the HTTP status (0 when the
 * server was not reached), the failed op of a capture batch (index), and the server's API version.
 */
export class AnnalsError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly index: number | undefined;
  readonly serverVersion: string | undefined;

  constructor(code: ErrorCode, message: string, opts: { status?: number; index?: number; serverVersion?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "AnnalsError";
    this.code = code;
    this.status = opts.status ?? 0;
    this.index = opts.index;
    this.serverVersion = opts.serverVersion;
  }

  /** A copy naming another op of a batch (the batch was split into several requests). */
  withIndex(index: number): AnnalsError {
    return new AnnalsError(this.code, this.message, { status: this.status, index, serverVersion: this.serverVersion, cause: this.cause });
  }
}

const codeByStatus: Record<number, ErrorCode> = {
  400: "invalid",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "too_large",
  429: "too_many_requests",
  501: "not_implemented",
  502: "unavailable",
  503: "unavailable",
  504: "unavailable",
};

/** The error an API version mismatch gives: the server lacks what this client needs (naming both versions). */
export function missingOnServer(serverVersion: string | undefined, what: string, status: number): AnnalsError {
  const server = serverVersion ? `API version ${serverVersion}` : `an API version older than ${API_VERSION} (it names none)`;
  return new AnnalsError(
    "not_implemented",
    `the annals server speaks ${server} and has no ${what}, which this client (API version ${API_VERSION}) needs: ` +
      "upgrade the server, or use a client of the server's API version",
    { status, serverVersion },
  );
}

/** The AnnalsError of a non-2xx answer whose body is text. */
export function errorOfAnswer(method: string, path: string, status: number, serverVersion: string | undefined, text: string): AnnalsError {
  let body: Partial<ErrorBody> | undefined;
  try {
    body = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    body = undefined;
  }
  const detail = body?.error;
  if (!detail || typeof detail.code !== "string") {
    const code = codeByStatus[status] ?? "internal";
    return new AnnalsError(code, `the server answered ${status} to ${method} ${path}`, { status, serverVersion });
  }
  if (status === 404 && detail.message.startsWith("no route ")) {
    return missingOnServer(serverVersion, `route ${method} ${path}`, status);
  }
  const unknownOp = /^unknown op "([^"]*)"/.exec(detail.message);
  if (detail.code === "invalid" && unknownOp && serverVersion !== API_VERSION) {
    return missingOnServer(serverVersion, `op "${unknownOp[1]}"`, status);
  }
  return new AnnalsError(detail.code, detail.message, { status, index: detail.index, serverVersion });
}
