// The annals API's shapes, one interface per schema of docs/openapi.yaml under the same name and
// with the same property names (clients/drift_test.go holds the two together): change a schema
// there and this file must follow, or the test names the difference.

/** An error code of the API (ErrorCode in docs/openapi.yaml). */
export type ErrorCode =
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "too_large"
  | "too_many_requests"
  | "unavailable"
  | "not_implemented"
  | "internal";

/** The ops of the op envelope, POST /v1/history (docs/OPERATIONS.md). */
export type Op =
  | "list"
  | "search"
  | "related"
  | "get"
  | "usage"
  | "rename"
  | "annotate"
  | "pin"
  | "archive"
  | "recap"
  | "resume"
  | "delete";

export type Scope = "" | "self" | "user" | "tenant" | "global";
export type RunStatus = "running" | "awaiting_input" | "completed" | "failed" | "cancelled";
export type EntryKind = "user" | "assistant" | "system" | "tool" | "event";
export type ToolOutcome = "succeeded" | "failed" | "cancelled" | "unknown";
/** An RFC 3339 time, as the server writes it. */
export type Time = string;

/** The body of every error answer. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; index?: number };
}

/** An attribute filter: exact (a string) or a substring ({contains}). */
export type AttributeFilter = string | { contains: string };

/** The op envelope of POST /v1/history; each op reads the fields it documents. */
export interface Envelope {
  op: Op;
  scope?: Scope;
  session_id?: string;
  status?: RunStatus;
  from?: string;
  to?: string;
  tag?: string;
  title_contains?: string;
  id_prefix?: string;
  attributes?: Record<string, AttributeFilter>;
  agent?: string;
  pinned_only?: boolean;
  include_archived?: boolean;
  limit?: number;
  offset?: number;
  cursor?: string;
  query?: string;
  in?: Array<"title" | "description" | "summary" | "tags" | "body" | "tools">;
  sort?: "relevance" | "recent";
  rank?: "lexical" | "hybrid" | "semantic";
  mode?: "chats" | "entries";
  mark_open?: string;
  mark_close?: string;
  explain?: boolean;
  format?: "json" | "markdown" | "conversation";
  after_seq?: number;
  around_seq?: number;
  context?: number;
  title?: string;
  description?: string;
  tags?: string[];
  pinned?: boolean;
  archived?: boolean;
  zone?: string;
  top?: number;
}

export interface Totals {
  runs: number;
  entries: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

export interface Chat {
  id: string;
  tenant_id: string;
  user_id?: string;
  agent_id?: string;
  attributes?: Record<string, string>;
  created_at: Time;
  last_activity: Time;
  status?: RunStatus;
  title?: string;
  description?: string;
  tags?: string[];
  pinned: boolean;
  archived_at?: Time;
  summary?: string;
  summary_updated_at?: Time;
  totals: Totals;
}

export interface ToolCall {
  name: string;
  call_id?: string;
  arguments?: unknown;
  result?: string;
  outcome?: ToolOutcome;
}

export interface Entry {
  chat_id: string;
  id: string;
  seq: number;
  kind: EntryKind;
  run_id?: string;
  source_ids?: string[];
  channel?: string;
  correlation_id?: string;
  time: Time;
  text?: string;
  reasoning?: string;
  tool?: ToolCall;
  input_tokens?: number;
  output_tokens?: number;
  metadata?: Record<string, unknown>;
}

export interface Run {
  id: string;
  chat_id: string;
  status: RunStatus;
  model?: string;
  started_at: Time;
  ended_at?: Time;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

/** A chat of the capture format (docs/FORMAT.md): what createChat sends. */
export interface ChatRecord {
  type?: "chat";
  id: string;
  tenant_id?: string;
  user_id?: string;
  agent_id?: string;
  attributes?: Record<string, string>;
  created_at?: string;
  title?: string;
  description?: string;
  tags?: string[];
  pinned?: boolean;
  archived_at?: string;
  summary?: string;
  summary_updated_at?: string;
}

/** An entry of the capture format. Entries are idempotent by id: send one twice, it is stored once. */
export interface EntryRecord {
  type?: "entry";
  chat_id?: string;
  id: string;
  kind: EntryKind;
  run_id?: string;
  source_ids?: string[];
  channel?: string;
  correlation_id?: string;
  time?: string;
  text?: string;
  reasoning?: string;
  tool?: ToolCall;
  input_tokens?: number;
  output_tokens?: number;
  metadata?: Record<string, unknown>;
}

/** A run of the capture format; recording a run is an upsert by id. */
export interface RunRecord {
  type?: "run";
  id: string;
  chat_id: string;
  status: RunStatus;
  model?: string;
  started_at?: string;
  ended_at?: string;
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
}

/** Exactly one of entry_id, source_id and seq: the last entry kept. */
export interface TruncatePoint {
  entry_id?: string;
  source_id?: string;
  seq?: number;
}

/** One op of a capture batch (POST /v1/capture): exactly one of chat, append, truncate and run. */
export interface CaptureOp {
  chat?: CaptureChat;
  append?: { chat_id: string; entries: CaptureEntry[] };
  truncate?: { chat_id: string; point: TruncatePoint };
  run?: CaptureRun;
}

/** A chat in a capture batch: the Chat schema, with what the server fills in left out. */
export type CaptureChat = Partial<Omit<Chat, "totals" | "last_activity" | "status">> & { id: string };
/** An entry in a capture batch (chat_id is the append's; seq is the server's). */
export type CaptureEntry = Partial<Omit<Entry, "seq">> & { id: string; kind: EntryKind };
/** A run in a capture batch. */
export type CaptureRun = Partial<Run> & { id: string; chat_id: string; status: RunStatus };

export interface CreatedChat {
  chat: Chat;
  created: boolean;
}

export interface AppendResult {
  appended: number;
  skipped: number;
  last_seq: number;
}

export interface TruncateResult {
  removed: number;
  last_seq: number;
}

export interface CaptureResult {
  chats_created: number;
  chats_unchanged: number;
  entries_appended: number;
  entries_skipped: number;
  entries_removed: number;
  runs_recorded: number;
}

export interface IngestReport {
  lines: number;
  bytes: number;
  batches: number;
  duration_ns: number;
  chats_created?: number;
  entries_appended?: number;
}

export interface ChatPage {
  chats: Chat[];
  total: number;
  limit: number;
  offset: number;
  next_cursor?: string;
  scope: string;
  unreadable?: string[];
}

export interface Snippet {
  seq: number;
  kind: string;
  tool?: string;
  text: string;
}

export interface SearchPage {
  chats?: Array<{ chat: Chat; score?: number; matches: number; snippets?: Snippet[] }>;
  entries?: Array<{ entry: Entry; score?: number; snippet?: string }>;
  total: number;
  limit: number;
  offset: number;
  next_cursor?: string;
  scope: string;
  mode: "chats" | "entries";
  query: string;
  unreadable?: string[];
  partial?: boolean;
  partial_reason?: string;
  explain?: Record<string, unknown>;
}

export interface RelatedPage {
  results: Array<{ chat: Chat; score: number }>;
  candidates: number;
  candidate_cap: number;
  limit: number;
  model: string;
}

export interface ChatView {
  chat: Chat;
  format: "json" | "markdown" | "conversation";
  entries?: Entry[];
  limit?: number;
  context?: number;
  has_more: boolean;
  next_cursor?: string;
  markdown?: string;
}

export interface ChatAnswer {
  chat: Chat;
}

export interface Recap {
  chat: Chat;
  summary: string;
}

export interface ResumeHandle {
  session_id: string;
  agent: string;
  tenant_id: string;
  user_id: string;
  status: string;
  last_activity: string;
  hint: string;
  command?: string;
  cwd?: string;
}

export interface UsageReport {
  scope: string;
  from?: Time;
  to?: Time;
  zone: string;
  totals: Record<string, unknown>;
  days: Array<Record<string, unknown>>;
  agents: Array<Record<string, unknown>>;
  models: Array<Record<string, unknown>>;
  tools: Array<Record<string, unknown>>;
  heatmap: Record<string, unknown>;
  top: Record<string, unknown>;
  pricing?: Record<string, unknown>;
}

export interface Deleted {
  deleted: string;
}

/** GET /healthz. */
export interface Health {
  ok: boolean;
  kinds: string[];
}

/** POST /v1/admin/embeddings. */
export interface EmbeddingBackfill {
  model: string;
  embedded: number;
  failed: number;
  complete: boolean;
}

/** What each op of the envelope answers. */
export interface OpAnswers {
  list: ChatPage;
  search: SearchPage;
  related: RelatedPage;
  get: ChatView;
  usage: UsageReport;
  rename: ChatAnswer;
  annotate: ChatAnswer;
  pin: ChatAnswer;
  archive: ChatAnswer;
  recap: Recap;
  resume: ResumeHandle;
  delete: Deleted;
}

type Fields<K extends keyof Envelope> = Pick<Envelope, K>;
type ListFields =
  | "scope"
  | "status"
  | "from"
  | "to"
  | "tag"
  | "title_contains"
  | "id_prefix"
  | "attributes"
  | "agent"
  | "pinned_only"
  | "include_archived"
  | "limit"
  | "offset"
  | "cursor";

export type ListParams = Fields<ListFields>;
export type SearchParams = Fields<ListFields | "in" | "sort" | "rank" | "mode" | "mark_open" | "mark_close" | "explain"> & {
  query: string;
};
export type RelatedParams = Fields<"scope" | "limit" | "include_archived"> &
  ({ session_id: string; query?: never } | { query: string; session_id?: never });
export type GetParams = Fields<"scope" | "format" | "limit" | "cursor" | "after_seq" | "around_seq" | "context"> & {
  session_id: string;
};
export type UsageParams = Fields<"scope" | "from" | "to" | "zone" | "top">;
export type ByID = Fields<"scope"> & { session_id: string };
export type RenameParams = ByID & { title: string };
export type AnnotateParams = ByID & Fields<"description" | "tags">;
export type PinParams = ByID & Fields<"pinned">;
export type ArchiveParams = ByID & Fields<"archived">;
