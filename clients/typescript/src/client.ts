import { AnnalsError } from "./errors.js";
import { Transport, type ClientOptions } from "./transport.js";
import type {
  AnnotateParams,
  AppendResult,
  ArchiveParams,
  ByID,
  CaptureOp,
  CaptureResult,
  Chat,
  ChatAnswer,
  ChatPage,
  ChatRecord,
  ChatView,
  CreatedChat,
  Deleted,
  EmbeddingBackfill,
  Entry,
  EntryRecord,
  Envelope,
  GetParams,
  Health,
  IngestReport,
  ListParams,
  Op,
  OpAnswers,
  PinParams,
  Recap,
  RelatedPage,
  RelatedParams,
  RenameParams,
  ResumeHandle,
  Run,
  RunRecord,
  SearchPage,
  SearchParams,
  TruncatePoint,
  TruncateResult,
  UsageParams,
  UsageReport,
} from "./types.js";

/** Ops whose effect is the same when sent twice; only they are retried. recap asks a summarizer
 * again and delete answers not_found the second time, so neither is. */
const idempotentOps: ReadonlySet<Op> = new Set<Op>(["list", "search", "related", "get", "usage", "rename", "annotate", "pin", "archive", "resume"]);

/** The server's limit of entries per append request. */
const maxEntriesPerAppend = 10_000;

/** Anything that takes capture batches: a Client, or a BestEffort in front of one. */
export interface CaptureSink {
  capture(ops: CaptureOp[]): Promise<CaptureResult>;
}

/**
 * A client of one annals server's HTTP API (docs/HTTP.md): every op of the envelope, the capture
 * calls, paging helpers, exports, runs and health. Errors are AnnalsError.
 */
export class Client implements CaptureSink {
  private readonly t: Transport;

  constructor(baseUrl: string, opts: ClientOptions = {}) {
    this.t = new Transport(baseUrl, opts);
  }

  /** The API version the server named in its last answer (undefined before the first). */
  get serverVersion(): string | undefined {
    return this.t.serverVersion;
  }

  /** Runs one op envelope (POST /v1/history) and answers the op's answer. */
  history<O extends Op>(req: Envelope & { op: O }): Promise<OpAnswers[O]> {
    return this.t.json<OpAnswers[O]>({ method: "POST", path: "/v1/history", body: JSON.stringify(req), contentType: "application/json", idempotent: idempotentOps.has(req.op) });
  }

  list(p: ListParams = {}): Promise<ChatPage> {
    return this.history({ ...p, op: "list" });
  }
  search(p: SearchParams): Promise<SearchPage> {
    return this.history({ ...p, op: "search" });
  }
  related(p: RelatedParams): Promise<RelatedPage> {
    return this.history({ ...p, op: "related" });
  }
  get(p: GetParams): Promise<ChatView> {
    return this.history({ ...p, op: "get" });
  }
  usage(p: UsageParams = {}): Promise<UsageReport> {
    return this.history({ ...p, op: "usage" });
  }
  rename(p: RenameParams): Promise<ChatAnswer> {
    return this.history({ ...p, op: "rename" });
  }
  annotate(p: AnnotateParams): Promise<ChatAnswer> {
    return this.history({ ...p, op: "annotate" });
  }
  pin(p: PinParams): Promise<ChatAnswer> {
    return this.history({ ...p, op: "pin" });
  }
  archive(p: ArchiveParams): Promise<ChatAnswer> {
    return this.history({ ...p, op: "archive" });
  }
  recap(p: ByID): Promise<Recap> {
    return this.history({ ...p, op: "recap" });
  }
  resume(p: ByID): Promise<ResumeHandle> {
    return this.history({ ...p, op: "resume" });
  }
  delete(p: ByID): Promise<Deleted> {
    return this.history({ ...p, op: "delete" });
  }

  /** Every chat list matches, page by page (next_cursor), from p.cursor on. */
  async *listAll(p: Omit<ListParams, "offset"> = {}): AsyncGenerator<Chat> {
    let cursor = p.cursor;
    for (;;) {
      const page = await this.list({ ...p, cursor });
      yield* page.chats;
      if (!page.next_cursor || page.chats.length === 0) return;
      cursor = page.next_cursor;
    }
  }

  /** Every hit of a search, page by page: chats (mode chats) or entries (mode entries). */
  async *searchAll(p: Omit<SearchParams, "offset">): AsyncGenerator<NonNullable<SearchPage["chats"]>[number] | NonNullable<SearchPage["entries"]>[number]> {
    let cursor = p.cursor;
    for (;;) {
      const page = await this.search({ ...p, cursor });
      const hits = page.mode === "entries" ? (page.entries ?? []) : (page.chats ?? []);
      yield* hits;
      if (!page.next_cursor || hits.length === 0) return;
      cursor = page.next_cursor;
    }
  }

  /** A chat's whole transcript, page by page (get with cursor), from p.cursor or p.after_seq on. */
  async *entries(p: Omit<GetParams, "format" | "around_seq" | "context">): AsyncGenerator<Entry> {
    let next: Pick<GetParams, "cursor" | "after_seq"> = { cursor: p.cursor, after_seq: p.after_seq };
    for (;;) {
      const view = await this.get({ ...p, ...next, format: "json" });
      const entries = view.entries ?? [];
      yield* entries;
      if (!view.has_more || !view.next_cursor || entries.length === 0) return;
      next = { cursor: view.next_cursor };
    }
  }

  /** Creates a chat (POST /v1/sessions); the same chat again answers created: false. */
  createChat(chat: ChatRecord): Promise<CreatedChat> {
    return this.t.json<CreatedChat>({ method: "POST", path: "/v1/sessions", body: JSON.stringify(chat), contentType: "application/json", idempotent: true });
  }

  /** Appends entries to a chat, in requests of at most 10,000 entries and maxBatchBytes; entries are idempotent by id. */
  async appendEntries(chatId: string, entries: EntryRecord[]): Promise<AppendResult> {
    const total: AppendResult = { appended: 0, skipped: 0, last_seq: 0 };
    const path = `/v1/sessions/${encodeURIComponent(chatId)}/entries`;
    for (const part of split(entries, this.t.maxBatchBytes, maxEntriesPerAppend)) {
      let res: AppendResult;
      try {
        res = await this.t.json<AppendResult>({ method: "POST", path, body: `{"entries":[${part.items.join(",")}]}`, contentType: "application/json", idempotent: true });
      } catch (err) {
        throw err instanceof AnnalsError && part.start > 0 ? err.withIndex(part.start + (err.index ?? 0)) : err;
      }
      total.appended += res.appended;
      total.skipped += res.skipped;
      total.last_seq = res.last_seq;
    }
    return total;
  }

  /**
   * Removes the entry at point and every entry after it (POST /v1/sessions/{id}/truncate). Not
   * retried: sent twice, the second finds no entry at point and answers not_found.
   */
  truncateChat(chatId: string, point: TruncatePoint): Promise<TruncateResult> {
    const path = `/v1/sessions/${encodeURIComponent(chatId)}/truncate`;
    return this.t.json<TruncateResult>({ method: "POST", path, body: JSON.stringify(point), contentType: "application/json", idempotent: false });
  }

  /** Records a run, an upsert by id (POST /v1/runs), and answers it as stored. */
  async recordRun(run: RunRecord): Promise<Run> {
    const res = await this.t.json<{ run: Run }>({ method: "POST", path: "/v1/runs", body: JSON.stringify(run), contentType: "application/json", idempotent: true });
    return res.run;
  }

  /**
   * Applies capture ops (POST /v1/capture): each request is one transaction; a batch larger than
   * maxBatchBytes goes in several, and an earlier part stays applied when a later one fails. A
   * failed op's error names its position in ops (AnnalsError.index). A request is retried
   * unless it holds a truncate (chats, entries and runs are idempotent; a truncate is not).
   */
  async capture(ops: CaptureOp[]): Promise<CaptureResult> {
    const total: CaptureResult = { chats_created: 0, chats_unchanged: 0, entries_appended: 0, entries_skipped: 0, entries_removed: 0, runs_recorded: 0 };
    for (const part of split(ops, this.t.maxBatchBytes, Infinity)) {
      const idempotent = !ops.slice(part.start, part.start + part.items.length).some((op) => op.truncate);
      let res: CaptureResult;
      try {
        res = await this.t.json<CaptureResult>({ method: "POST", path: "/v1/capture", body: `{"ops":[${part.items.join(",")}]}`, contentType: "application/json", idempotent });
      } catch (err) {
        throw err instanceof AnnalsError && err.index !== undefined ? err.withIndex(part.start + err.index) : err;
      }
      for (const k of Object.keys(total) as Array<keyof CaptureResult>) total[k] += res[k] ?? 0;
    }
    return total;
  }

  /** Posts a whole capture-format input (JSON Lines) to POST /v1/ingest, validated whole first. */
  ingest(jsonl: string): Promise<IngestReport> {
    return this.t.json<IngestReport>({ method: "POST", path: "/v1/ingest", body: jsonl, contentType: "application/x-ndjson", idempotent: true });
  }

  /** Downloads a chat: portable Markdown, or the JSON export's text (GET /v1/sessions/{id}/export). */
  exportChat(chatId: string, opts: { format?: "markdown" | "json"; scope?: string } = {}): Promise<string> {
    const q = new URLSearchParams({ format: opts.format ?? "markdown" });
    if (opts.scope) q.set("scope", opts.scope);
    return this.t.text({ method: "GET", path: `/v1/sessions/${encodeURIComponent(chatId)}/export?${q}`, idempotent: true });
  }

  /** A chat's runs, oldest first (GET /v1/sessions/{id}/runs). */
  async chatRuns(chatId: string, opts: { scope?: string } = {}): Promise<Run[]> {
    const q = opts.scope ? `?${new URLSearchParams({ scope: opts.scope })}` : "";
    const res = await this.t.json<{ runs: Run[] }>({ method: "GET", path: `/v1/sessions/${encodeURIComponent(chatId)}/runs${q}`, idempotent: true });
    return res.runs;
  }

  /** GET /healthz (no key needed). */
  health(): Promise<Health> {
    return this.t.json<Health>({ method: "GET", path: "/healthz", idempotent: true });
  }

  /** One step of the embedding backfill (admin keys; POST /v1/admin/embeddings): call until complete. */
  backfillEmbeddings(): Promise<EmbeddingBackfill> {
    return this.t.json<EmbeddingBackfill>({ method: "POST", path: "/v1/admin/embeddings", idempotent: true });
  }
}

/** Splits values into parts whose JSON fits maxBytes (one oversized value goes alone) and maxCount. */
function split<T>(values: T[], maxBytes: number, maxCount: number): Array<{ start: number; items: string[] }> {
  const parts: Array<{ start: number; items: string[] }> = [];
  let cur: { start: number; items: string[] } = { start: 0, items: [] };
  let size = 0;
  values.forEach((v, i) => {
    const s = JSON.stringify(v);
    const bytes = utf8Length(s) + 1;
    if (cur.items.length > 0 && (size + bytes + 16 > maxBytes || cur.items.length >= maxCount)) {
      parts.push(cur);
      cur = { start: i, items: [] };
      size = 0;
    }
    cur.items.push(s);
    size += bytes;
  });
  if (cur.items.length > 0) parts.push(cur);
  return parts;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
