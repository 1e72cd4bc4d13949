"""The annals API's shapes: one TypedDict per schema of docs/openapi.yaml, under the same name and
with the same keys, the required ones required (clients/drift_test.go holds the two together:
change a schema there and this file must follow, or the test names the difference)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union

ErrorCode = Literal[
    "invalid", "unauthorized", "forbidden", "not_found", "method_not_allowed", "conflict",
    "too_large", "too_many_requests", "unavailable", "not_implemented", "internal",
]
"""An error code of the API (ErrorCode in docs/openapi.yaml)."""

Op = Literal["list", "search", "related", "get", "usage", "rename", "annotate", "pin", "archive", "recap", "resume", "delete"]
"""The ops of the op envelope, POST /v1/history (docs/OPERATIONS.md)."""

Scope = Literal["", "self", "user", "tenant", "global"]
RunStatus = Literal["running", "awaiting_input", "completed", "failed", "cancelled"]
RunKind = Literal["recap", "embed"]
EntryKind = Literal["user", "assistant", "system", "tool", "event"]
ToolOutcome = Literal["succeeded", "failed", "cancelled", "unknown"]
AttributeFilter = Union[str, Dict[str, str]]

class _ErrorDetailRequired(TypedDict):
    code: ErrorCode
    message: str


class ErrorDetail(_ErrorDetailRequired, total=False):
    index: int
    """POST /v1/capture: the position of the failed op."""


class ErrorBody(TypedDict):
    """The body of every error answer."""
    error: ErrorDetail


# The envelope has fields named after Python keywords (from, in): the functional form.
_EnvelopeFields = TypedDict("_EnvelopeFields", {
    "scope": Scope,
    "session_id": str,
    "status": RunStatus,
    "from": str,
    "to": str,
    "tag": str,
    "title_contains": str,
    "id_prefix": str,
    "attributes": Dict[str, AttributeFilter],
    "agent": str,
    "pinned_only": bool,
    "include_archived": bool,
    "limit": int,
    "offset": int,
    "cursor": str,
    "query": str,
    "in": List[str],
    "sort": Literal["relevance", "recent"],
    "rank": Literal["lexical", "hybrid", "semantic"],
    "mode": Literal["chats", "entries"],
    "mark_open": str,
    "mark_close": str,
    "explain": bool,
    "format": Literal["json", "markdown", "conversation"],
    "after_seq": int,
    "around_seq": int,
    "context": int,
    "title": str,
    "description": str,
    "tags": List[str],
    "pinned": bool,
    "archived": bool,
    "zone": str,
    "top": int,
}, total=False)


class Envelope(_EnvelopeFields):
    """The op envelope of POST /v1/history; each op reads the fields it documents."""
    op: Op


class Totals(TypedDict):
    runs: int
    entries: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


class _ChatRequired(TypedDict):
    id: str
    tenant_id: str
    created_at: str
    last_activity: str
    pinned: bool
    totals: Totals


class Chat(_ChatRequired, total=False):
    user_id: str
    agent_id: str
    attributes: Dict[str, str]
    status: RunStatus
    title: str
    title_generated: bool
    description: str
    tags: List[str]
    archived_at: str
    summary: str
    summary_updated_at: str


class _ToolCallRequired(TypedDict):
    name: str


class ToolCall(_ToolCallRequired, total=False):
    call_id: str
    arguments: Any
    result: str
    outcome: ToolOutcome


class _EntryRequired(TypedDict):
    chat_id: str
    id: str
    seq: int
    kind: EntryKind
    time: str


class Entry(_EntryRequired, total=False):
    run_id: str
    source_ids: List[str]
    channel: str
    correlation_id: str
    text: str
    reasoning: str
    tool: ToolCall
    input_tokens: int
    output_tokens: int
    metadata: Dict[str, Any]


class _RunRequired(TypedDict):
    id: str
    chat_id: str
    status: RunStatus
    started_at: str


class Run(_RunRequired, total=False):
    model: str
    ended_at: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    context_tokens: int
    cost_usd: float
    kind: RunKind
    estimated_cost_usd: float


class _ChatRecordRequired(TypedDict):
    id: str


class ChatRecord(_ChatRecordRequired, total=False):
    """A chat of the capture format (docs/FORMAT.md): what create_chat sends."""
    type: Literal["chat"]
    tenant_id: str
    user_id: str
    agent_id: str
    attributes: Dict[str, str]
    created_at: str
    title: str
    description: str
    tags: List[str]
    pinned: bool
    archived_at: str
    summary: str
    summary_updated_at: str


class _EntryRecordRequired(TypedDict):
    id: str
    kind: EntryKind


class EntryRecord(_EntryRecordRequired, total=False):
    """An entry of the capture format; entries are idempotent by id."""
    type: Literal["entry"]
    chat_id: str
    run_id: str
    source_ids: List[str]
    channel: str
    correlation_id: str
    time: str
    text: str
    reasoning: str
    tool: ToolCall
    input_tokens: int
    output_tokens: int
    metadata: Dict[str, Any]


class _RunRecordRequired(TypedDict):
    id: str
    chat_id: str
    status: RunStatus


class RunRecord(_RunRecordRequired, total=False):
    """A run of the capture format; recording a run is an upsert by id."""
    type: Literal["run"]
    model: str
    started_at: str
    ended_at: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    context_tokens: int
    cost_usd: float
    kind: RunKind


class TruncatePoint(TypedDict, total=False):
    """Exactly one of entry_id, source_id and seq: the first entry removed."""
    entry_id: str
    source_id: str
    seq: int


class CaptureOp(TypedDict, total=False):
    """One op of a capture batch: exactly one of chat, append, truncate and run."""
    chat: Dict[str, Any]
    append: Dict[str, Any]
    truncate: Dict[str, Any]
    run: Dict[str, Any]


class CreatedChat(TypedDict):
    chat: Chat
    created: bool


class AppendResult(TypedDict):
    appended: int
    skipped: int
    last_seq: int


class TruncateResult(TypedDict):
    removed: int
    last_seq: int


class CaptureResult(TypedDict):
    chats_created: int
    chats_unchanged: int
    entries_appended: int
    entries_skipped: int
    entries_removed: int
    runs_recorded: int


class _IngestReportRequired(TypedDict):
    lines: int
    bytes: int
    batches: int
    duration_ns: int


class IngestReport(_IngestReportRequired, total=False):
    chats_created: int
    entries_appended: int


class _ChatPageRequired(TypedDict):
    chats: List[Chat]
    total: int
    limit: int
    offset: int
    scope: str


class ChatPage(_ChatPageRequired, total=False):
    next_cursor: str
    unreadable: List[str]


class _SnippetRequired(TypedDict):
    seq: int
    kind: str
    text: str


class Snippet(_SnippetRequired, total=False):
    tool: str


class _SearchPageRequired(TypedDict):
    total: int
    limit: int
    offset: int
    scope: str
    mode: Literal["chats", "entries"]
    query: str


class SearchPage(_SearchPageRequired, total=False):
    chats: List[Dict[str, Any]]
    entries: List[Dict[str, Any]]
    next_cursor: str
    unreadable: List[str]
    partial: bool
    partial_reason: str
    # The search stopped after its page: at least total match.
    total_is_lower_bound: bool
    explain: Dict[str, Any]


class RelatedPage(TypedDict):
    results: List[Dict[str, Any]]
    candidates: int
    candidate_cap: int
    limit: int
    model: str


class _ChatViewRequired(TypedDict):
    chat: Chat
    format: Literal["json", "markdown", "conversation"]
    has_more: bool


class ChatView(_ChatViewRequired, total=False):
    entries: List[Entry]
    limit: int
    context: int
    next_cursor: str
    markdown: str


class ChatAnswer(TypedDict):
    chat: Chat


class Recap(TypedDict):
    chat: Chat
    summary: str


class _ResumeHandleRequired(TypedDict):
    session_id: str
    agent: str
    tenant_id: str
    user_id: str
    status: str
    last_activity: str
    hint: str


class ResumeHandle(_ResumeHandleRequired, total=False):
    command: str
    cwd: str


# UsageReport has fields named from and to: the functional form for those.
_UsageReportOptional = TypedDict("_UsageReportOptional", {"from": str, "to": str, "pricing": Dict[str, Any]}, total=False)


class UsageReport(_UsageReportOptional):
    """Tokens and cost in scope over a range (docs/USAGE.md)."""
    scope: str
    zone: str
    totals: Dict[str, Any]
    days: List[Dict[str, Any]]
    agents: List[Dict[str, Any]]
    models: List[Dict[str, Any]]
    tools: List[Dict[str, Any]]
    heatmap: Dict[str, Any]
    top: Dict[str, Any]


class Deleted(TypedDict):
    deleted: str


class Health(TypedDict):
    ok: bool
    kinds: List[str]


class EmbeddingBackfill(TypedDict):
    model: str
    embedded: int
    failed: int
    complete: bool
