import { API_VERSION_HEADER, AnnalsError, errorOfAnswer } from "./errors.js";

/** How a Client reaches the server. Every field is optional. */
export interface ClientOptions {
  /** The API key, sent as `Authorization: Bearer <key>`; none for a server in local mode. */
  apiKey?: string;
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  /** How many times an idempotent call is retried after a failure that may pass (default 3). */
  retries?: number;
  /** The first retry's backoff in ms (default 100); each retry doubles it, with full jitter. */
  backoffMs?: number;
  /** The longest wait between two attempts in ms (default 5000), Retry-After included. */
  maxBackoffMs?: number;
  /** How long one attempt may take in ms (default 60000, the server's request timeout). */
  timeoutMs?: number;
  /** The largest body of one capture request in bytes (default 4 MiB); larger batches are split. */
  maxBatchBytes?: number;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** One request: whether it may be sent again after a failure, and what it sends. */
export interface Call {
  method: "GET" | "POST";
  path: string;
  body?: string;
  contentType?: string;
  idempotent: boolean;
}

// Statuses whose request may succeed if sent again: the server busy, at its request timeout, or
// a proxy in front of it failing.
const retryableStatus = new Set([429, 502, 503, 504]);

/** The HTTP layer of a Client: auth, timeouts, retries with backoff, errors as AnnalsError. */
export class Transport {
  readonly baseUrl: string;
  readonly maxBatchBytes: number;
  /** The API version the server named in its last answer. */
  serverVersion: string | undefined;
  private readonly opts: ClientOptions;
  private readonly fetchFn: typeof fetch;

  constructor(baseUrl: string, opts: ClientOptions = {}) {
    let u: URL;
    try {
      u = new URL(baseUrl);
    } catch {
      throw new AnnalsError("invalid", `the annals server URL ${JSON.stringify(baseUrl)} is not a URL (want e.g. http://127.0.0.1:7457)`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") {
      throw new AnnalsError("invalid", `the annals server URL ${JSON.stringify(baseUrl)} must be http or https`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.opts = opts;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxBatchBytes = opts.maxBatchBytes ?? 4 << 20;
  }

  /** Sends call, retrying it if idempotent, and answers the 2xx response's body text. */
  async text(call: Call): Promise<string> {
    const retries = call.idempotent ? Math.max(0, this.opts.retries ?? 3) : 0;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.once(call);
      } catch (cause) {
        const err = new AnnalsError("unavailable", `cannot reach the annals server at ${this.baseUrl}: ${describe(cause)}`, { cause });
        if (attempt >= retries) throw err;
        await sleep(this.backoff(attempt, 0));
        continue;
      }
      this.serverVersion = res.headers.get(API_VERSION_HEADER) ?? this.serverVersion;
      let text: string;
      try {
        text = await res.text();
      } catch (cause) {
        const err = new AnnalsError("unavailable", `the answer to ${call.method} ${call.path} was cut short: ${describe(cause)}`, { cause });
        if (attempt >= retries) throw err;
        await sleep(this.backoff(attempt, 0));
        continue;
      }
      if (res.ok) return text;
      const err = errorOfAnswer(call.method, call.path, res.status, res.headers.get(API_VERSION_HEADER) ?? undefined, text);
      if (attempt >= retries || !retryableStatus.has(res.status)) throw err;
      await sleep(this.backoff(attempt, retryAfterMs(res.headers.get("Retry-After"))));
    }
  }

  /** Sends call and decodes its JSON answer. */
  async json<T>(call: Call): Promise<T> {
    const text = await this.text(call);
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new AnnalsError("unavailable", `the server's answer to ${call.method} ${call.path} is not valid JSON`, { cause });
    }
  }

  private once(call: Call): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json", ...this.opts.headers };
    if (call.contentType) headers["Content-Type"] = call.contentType;
    if (this.opts.apiKey) headers["Authorization"] = `Bearer ${this.opts.apiKey}`;
    return this.fetchFn(this.baseUrl + call.path, {
      method: call.method,
      headers,
      body: call.body,
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 60_000),
    });
  }

  private backoff(attempt: number, floorMs: number): number {
    const max = this.opts.maxBackoffMs ?? 5000;
    const base = Math.min(max, (this.opts.backoffMs ?? 100) * 2 ** attempt);
    return Math.min(max, Math.max(floorMs, Math.random() * base));
  }
}

function retryAfterMs(header: string | null): number {
  const s = header === null ? NaN : Number(header);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 0;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
