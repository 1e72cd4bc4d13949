import { AnnalsError } from "./errors.js";
import type { CaptureSink } from "./client.js";
import type { CaptureEntry, CaptureOp, CaptureResult, CaptureRun, ChatRecord, TruncatePoint } from "./types.js";

const zero = (): CaptureResult => ({ chats_created: 0, chats_unchanged: 0, entries_appended: 0, entries_skipped: 0, entries_removed: 0, runs_recorded: 0 });

/** What a BestEffort reports: the first store failure (then capture is off) and each refused batch. */
export type Warn = (message: string, err: AnnalsError) => void;

/**
 * Best-effort capture, as the Go library's besteffort package: a store failure never reaches the
 * agent. capture() always resolves. The first failure of the store itself (unreachable,
 * unavailable, unauthorized, forbidden, internal, ...) is warned once and turns capture off for
 * the rest of the process; a batch refused for what it is (invalid, conflict, not_found) is
 * dropped with a warning and capture stays on.
 */
export class BestEffort implements CaptureSink {
  /** The failure that turned capture off, if any. */
  failure: AnnalsError | undefined;
  /** The last error, a dropped batch's included. */
  lastError: AnnalsError | undefined;
  private readonly sink: CaptureSink;
  private readonly warn: Warn;

  constructor(sink: CaptureSink, warn: Warn = (m, e) => console.warn(`${m}: ${e.message}`)) {
    this.sink = sink;
    this.warn = warn;
  }

  /** Whether capture is off after a store failure. */
  get disabled(): boolean {
    return this.failure !== undefined;
  }

  async capture(ops: CaptureOp[]): Promise<CaptureResult> {
    if (this.disabled || ops.length === 0) return zero();
    try {
      return await this.sink.capture(ops);
    } catch (cause) {
      const err = cause instanceof AnnalsError ? cause : new AnnalsError("internal", String(cause), { cause });
      this.lastError = err;
      if (err.code === "invalid" || err.code === "conflict" || err.code === "not_found") {
        this.warn("annals: a capture batch was refused and dropped", err);
      } else if (!this.disabled) {
        this.failure = err;
        this.warn("annals: history unavailable, capture is off for the rest of this process", err);
      }
      return zero();
    }
  }
}

/** How a Recorder batches. */
export interface RecorderOptions {
  /** Send a batch once this many entries wait (default 100). */
  maxEntries?: number;
  /** Send what waits at least this often in ms (default 1000; 0: only on flush and close). */
  flushIntervalMs?: number;
}

/**
 * Streaming capture of one chat: append entries as the agent produces them, and they go to the
 * server in batches (one POST /v1/capture each, the chat's create op with the first). Entries
 * are idempotent by id, so a batch retried after a lost answer is stored once. flush() sends what
 * waits; close() flushes and stops the timer. Errors of a batch surface from flush()/close() (or
 * nowhere, with a BestEffort sink).
 */
export class Recorder {
  readonly chatId: string;
  private readonly sink: CaptureSink;
  private readonly opts: Required<RecorderOptions>;
  private pending: CaptureOp[] = [];
  private pendingEntries = 0;
  private chat: ChatRecord | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private sending: Promise<CaptureResult> = Promise.resolve(zero());
  private seq = 0;
  private failed: unknown;

  constructor(sink: CaptureSink, chat: ChatRecord, opts: RecorderOptions = {}) {
    this.sink = sink;
    this.chat = chat;
    this.chatId = chat.id;
    this.opts = { maxEntries: opts.maxEntries ?? 100, flushIntervalMs: opts.flushIntervalMs ?? 1000 };
    if (this.opts.flushIntervalMs > 0) {
      this.timer = setInterval(() => void this.flush().catch(() => undefined), this.opts.flushIntervalMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  /** Queues entries (an entry without id gets `<chat id>/<n>`, unique within this recorder). */
  append(...entries: Array<Omit<CaptureEntry, "id"> & { id?: string }>): void {
    const withIds = entries.map((e) => ({ ...e, id: e.id ?? `${this.chatId}/${++this.seq}` }) as CaptureEntry);
    const last = this.pending[this.pending.length - 1];
    if (last?.append) last.append.entries.push(...withIds);
    else this.pending.push({ append: { chat_id: this.chatId, entries: withIds } });
    this.pendingEntries += withIds.length;
    if (this.pendingEntries >= this.opts.maxEntries) void this.flush().catch(() => undefined);
  }

  /** Queues a run of this chat (an upsert by id). */
  recordRun(run: Omit<CaptureRun, "chat_id">): void {
    this.pending.push({ run: { ...run, chat_id: this.chatId } });
  }

  /** Queues a truncation after point. */
  truncate(point: TruncatePoint): void {
    this.pending.push({ truncate: { chat_id: this.chatId, point } });
  }

  /** Sends what waits, after any batch in flight; rejects with the first failed batch's error. */
  flush(): Promise<CaptureResult> {
    const ops = this.pending;
    this.pending = [];
    this.pendingEntries = 0;
    if (this.chat) {
      ops.unshift({ chat: this.chat });
      this.chat = undefined;
    }
    const next = this.sending.then(async () => {
      if (this.failed !== undefined) throw this.failed;
      if (ops.length === 0) return zero();
      try {
        return await this.sink.capture(ops);
      } catch (err) {
        this.failed = err;
        throw err;
      }
    });
    this.sending = next.catch(() => zero());
    return next;
  }

  /** Flushes and stops the timer. */
  async close(): Promise<CaptureResult> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    return this.flush();
  }
}
