"""Client: the annals HTTP API (docs/HTTP.md) from Python, standard library only."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, cast

from .errors import AnnalsError
from .transport import Transport
from .types import (
    AppendResult, CaptureOp, CaptureResult, Chat, ChatAnswer, ChatPage, ChatRecord, ChatView, CreatedChat, Deleted,
    EmbeddingBackfill, Entry, EntryRecord, Health, IngestReport, Recap, RelatedPage, ResumeHandle, Run, RunRecord,
    SearchPage, TruncatePoint, TruncateResult, UsageReport,
)

# Ops whose effect is the same when sent twice; only they are retried. recap asks a summarizer
# again and delete answers not_found the second time, so neither is.
IDEMPOTENT_OPS = frozenset({"list", "search", "related", "get", "usage", "rename", "annotate", "pin", "archive", "resume"})

MAX_ENTRIES_PER_APPEND = 10_000
"""The server's limit of entries per append request."""

ROUTES = (
    "POST /v1/history",
    "POST /v1/sessions",
    "POST /v1/sessions/{id}/entries",
    "POST /v1/sessions/{id}/truncate",
    "POST /v1/runs",
    "POST /v1/capture",
    "POST /v1/ingest",
    "GET /v1/sessions/{id}/export",
    "GET /v1/sessions/{id}/runs",
    "GET /healthz",
    "POST /v1/admin/embeddings",
)
"""The API routes this client calls (clients/drift_test.go holds them to docs/openapi.yaml)."""


def zero_result() -> CaptureResult:
    return {"chats_created": 0, "chats_unchanged": 0, "entries_appended": 0, "entries_skipped": 0,
            "entries_removed": 0, "runs_recorded": 0}


def _fields(params: Optional[Mapping[str, Any]], kw: Mapping[str, Any]) -> Dict[str, Any]:
    """The envelope's fields from a dict and keywords; from_ and in_ stand for from and in."""
    out: Dict[str, Any] = dict(params or {})
    for k, v in kw.items():
        out[k[:-1] if k.endswith("_") else k] = v
    return {k: v for k, v in out.items() if v is not None}


def _id(chat_id: str) -> str:
    return urllib.parse.quote(chat_id, safe="")


class Client:
    """A client of one annals server's HTTP API: every op of the envelope, the capture calls,
    paging helpers, exports, runs and health. Errors are AnnalsError. Safe to share between
    threads (each keeps its own connection)."""

    def __init__(self, base_url: str, api_key: Optional[str] = None, *, retries: int = 3, backoff: float = 0.1,
                 max_backoff: float = 5.0, timeout: float = 60.0, max_batch_bytes: int = 4 << 20,
                 headers: Optional[Dict[str, str]] = None) -> None:
        self._t = Transport(base_url, api_key, retries, backoff, max_backoff, timeout, max_batch_bytes, headers)

    @property
    def server_version(self) -> Optional[str]:
        """The API version the server named in its last answer (None before the first)."""
        return self._t.server_version

    def close(self) -> None:
        self._t.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # The op envelope.

    def history(self, envelope: Mapping[str, Any]) -> Any:
        """Runs one op envelope (POST /v1/history) and answers the op's answer."""
        op = envelope.get("op")
        return self._t.json("POST", "/v1/history", dict(envelope), idempotent=op in IDEMPOTENT_OPS)

    def _op(self, op: str, params: Optional[Mapping[str, Any]], kw: Mapping[str, Any]) -> Any:
        return self.history({**_fields(params, kw), "op": op})

    def list(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> ChatPage:
        return cast(ChatPage, self._op("list", params, kw))

    def search(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> SearchPage:
        return cast(SearchPage, self._op("search", params, kw))

    def related(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> RelatedPage:
        return cast(RelatedPage, self._op("related", params, kw))

    def get(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> ChatView:
        return cast(ChatView, self._op("get", params, kw))

    def usage(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> UsageReport:
        return cast(UsageReport, self._op("usage", params, kw))

    def rename(self, session_id: str, title: str, **kw: Any) -> ChatAnswer:
        return cast(ChatAnswer, self._op("rename", {"session_id": session_id, "title": title}, kw))

    def annotate(self, session_id: str, description: Optional[str] = None, tags: Optional[Sequence[str]] = None, **kw: Any) -> ChatAnswer:
        p = {"session_id": session_id, "description": description, "tags": None if tags is None else list(tags)}
        return cast(ChatAnswer, self._op("annotate", p, kw))

    def pin(self, session_id: str, pinned: bool = True, **kw: Any) -> ChatAnswer:
        return cast(ChatAnswer, self._op("pin", {"session_id": session_id, "pinned": pinned}, kw))

    def archive(self, session_id: str, archived: bool = True, **kw: Any) -> ChatAnswer:
        return cast(ChatAnswer, self._op("archive", {"session_id": session_id, "archived": archived}, kw))

    def recap(self, session_id: str, **kw: Any) -> Recap:
        return cast(Recap, self._op("recap", {"session_id": session_id}, kw))

    def resume(self, session_id: str, **kw: Any) -> ResumeHandle:
        return cast(ResumeHandle, self._op("resume", {"session_id": session_id}, kw))

    def delete(self, session_id: str, **kw: Any) -> Deleted:
        return cast(Deleted, self._op("delete", {"session_id": session_id}, kw))

    # Paging.

    def list_all(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> Iterator[Chat]:
        """Every chat list matches, page by page (next_cursor)."""
        p = _fields(params, kw)
        while True:
            page = self.list(p)
            yield from page["chats"]
            cursor = page.get("next_cursor")
            if not cursor or not page["chats"]:
                return
            p = {**p, "cursor": cursor}

    def search_all(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> Iterator[Dict[str, Any]]:
        """Every hit of a search, page by page: chats (mode chats) or entries (mode entries)."""
        p = _fields(params, kw)
        while True:
            page = self.search(p)
            hits = page.get("entries", []) if page["mode"] == "entries" else page.get("chats", [])
            yield from hits
            cursor = page.get("next_cursor")
            if not cursor or not hits:
                return
            p = {**p, "cursor": cursor}

    def entries(self, session_id: str, **kw: Any) -> Iterator[Entry]:
        """A chat's whole transcript, page by page (get with cursor)."""
        p = {**_fields(None, kw), "session_id": session_id, "format": "json"}
        while True:
            view = self.get(p)
            got = view.get("entries", [])
            yield from got
            cursor = view.get("next_cursor")
            if not view["has_more"] or not cursor or not got:
                return
            p = {k: v for k, v in p.items() if k != "after_seq"}
            p["cursor"] = cursor

    # Capture.

    def create_chat(self, chat: ChatRecord) -> CreatedChat:
        """Creates a chat (POST /v1/sessions); the same chat again answers created False."""
        return cast(CreatedChat, self._t.json("POST", "/v1/sessions", dict(chat)))

    def append_entries(self, chat_id: str, entries: Sequence[EntryRecord]) -> AppendResult:
        """Appends entries, in requests of at most 10,000 entries and max_batch_bytes; entries are
        idempotent by id."""
        total: AppendResult = {"appended": 0, "skipped": 0, "last_seq": 0}
        path = f"/v1/sessions/{_id(chat_id)}/entries"
        for start, items in _split(entries, self._t.max_batch_bytes, MAX_ENTRIES_PER_APPEND):
            try:
                res = self._t.json("POST", path, raw=b'{"entries":[' + b",".join(items) + b"]}")
            except AnnalsError as e:
                raise (e.with_index(start + (e.index or 0)) if start > 0 else e) from e.__cause__
            total["appended"] += res["appended"]
            total["skipped"] += res["skipped"]
            total["last_seq"] = res["last_seq"]
        return total

    def truncate_chat(self, chat_id: str, point: TruncatePoint) -> TruncateResult:
        """Removes the entry at point and every entry after it. Not retried: sent twice, the second
        finds no entry at point and answers not_found."""
        return cast(TruncateResult, self._t.json("POST", f"/v1/sessions/{_id(chat_id)}/truncate", dict(point), idempotent=False))

    def record_run(self, run: RunRecord) -> Run:
        """Records a run, an upsert by id (POST /v1/runs), and answers it as stored."""
        return cast(Run, self._t.json("POST", "/v1/runs", dict(run))["run"])

    def capture(self, ops: Sequence[CaptureOp]) -> CaptureResult:
        """Applies capture ops (POST /v1/capture): each request is one transaction; a batch larger
        than max_batch_bytes goes in several, and an earlier part stays applied when a later one
        fails. A failed op's error names its position in ops (AnnalsError.index). A request is
        retried unless it holds a truncate."""
        total = zero_result()
        for start, items in _split(ops, self._t.max_batch_bytes, None):
            idempotent = not any("truncate" in op for op in ops[start:start + len(items)])
            try:
                res = self._t.json("POST", "/v1/capture", raw=b'{"ops":[' + b",".join(items) + b"]}", idempotent=idempotent)
            except AnnalsError as e:
                raise (e.with_index(start + e.index) if e.index is not None else e) from e.__cause__
            for k in total:
                total[k] += res.get(k, 0)  # type: ignore[literal-required]
        return total

    def ingest(self, jsonl: str) -> IngestReport:
        """Posts a whole capture-format input (JSON Lines) to POST /v1/ingest, validated whole first."""
        return cast(IngestReport, self._t.json("POST", "/v1/ingest", raw=jsonl.encode("utf-8"), content_type="application/x-ndjson"))

    # Reading.

    def export_chat(self, chat_id: str, format: str = "markdown", scope: Optional[str] = None) -> str:
        """Downloads a chat: portable Markdown, or the JSON export's text."""
        q = {"format": format, **({"scope": scope} if scope else {})}
        path = f"/v1/sessions/{_id(chat_id)}/export?{urllib.parse.urlencode(q)}"
        return self._t.request("GET", path, None, None, True).decode("utf-8")

    def chat_runs(self, chat_id: str, scope: Optional[str] = None) -> List[Run]:
        """A chat's runs, oldest first."""
        q = f"?{urllib.parse.urlencode({'scope': scope})}" if scope else ""
        return cast(List[Run], self._t.json("GET", f"/v1/sessions/{_id(chat_id)}/runs{q}")["runs"])

    def health(self) -> Health:
        """GET /healthz (no key needed)."""
        return cast(Health, self._t.json("GET", "/healthz"))

    def backfill_embeddings(self) -> EmbeddingBackfill:
        """One step of the embedding backfill (admin keys): call until complete."""
        return cast(EmbeddingBackfill, self._t.json("POST", "/v1/admin/embeddings"))


def _split(values: Sequence[Any], max_bytes: int, max_count: Optional[int]) -> List[Tuple[int, List[bytes]]]:
    """Splits values into parts whose JSON fits max_bytes (one oversized value goes alone) and max_count."""
    parts: List[Tuple[int, List[bytes]]] = []
    start, items, size = 0, [], 0  # type: int, List[bytes], int
    for i, v in enumerate(values):
        b = json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        if items and (size + len(b) + 17 > max_bytes or (max_count is not None and len(items) >= max_count)):
            parts.append((start, items))
            start, items, size = i, [], 0
        items.append(b)
        size += len(b) + 1
    if items:
        parts.append((start, items))
    return parts
