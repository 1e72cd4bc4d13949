"""AsyncClient: the Client's calls as coroutines, dependency-free (each call runs the blocking
Client in a worker thread with asyncio.to_thread; each worker keeps its own connection)."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Dict, Iterator, List, Mapping, Optional, Sequence

from .capture import Recorder
from .client import Client
from .types import (
    AppendResult, CaptureOp, CaptureResult, Chat, ChatAnswer, ChatPage, ChatRecord, ChatView, CreatedChat, Deleted,
    EmbeddingBackfill, Entry, EntryRecord, Health, IngestReport, Recap, RelatedPage, ResumeHandle, Run, RunRecord,
    SearchPage, TruncatePoint, TruncateResult, UsageReport,
)


class AsyncClient:
    """The Client's calls, awaitable. Takes the Client's arguments."""

    def __init__(self, base_url: str, api_key: Optional[str] = None, **opts: Any) -> None:
        self.sync = Client(base_url, api_key, **opts)

    @property
    def server_version(self) -> Optional[str]:
        return self.sync.server_version

    async def history(self, envelope: Mapping[str, Any]) -> Any:
        return await asyncio.to_thread(self.sync.history, envelope)

    async def list(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> ChatPage:
        return await asyncio.to_thread(self.sync.list, params, **kw)

    async def search(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> SearchPage:
        return await asyncio.to_thread(self.sync.search, params, **kw)

    async def related(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> RelatedPage:
        return await asyncio.to_thread(self.sync.related, params, **kw)

    async def get(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> ChatView:
        return await asyncio.to_thread(self.sync.get, params, **kw)

    async def usage(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> UsageReport:
        return await asyncio.to_thread(self.sync.usage, params, **kw)

    async def rename(self, session_id: str, title: str, **kw: Any) -> ChatAnswer:
        return await asyncio.to_thread(self.sync.rename, session_id, title, **kw)

    async def annotate(self, session_id: str, description: Optional[str] = None, tags: Optional[Sequence[str]] = None, **kw: Any) -> ChatAnswer:
        return await asyncio.to_thread(self.sync.annotate, session_id, description, tags, **kw)

    async def pin(self, session_id: str, pinned: bool = True, **kw: Any) -> ChatAnswer:
        return await asyncio.to_thread(self.sync.pin, session_id, pinned, **kw)

    async def archive(self, session_id: str, archived: bool = True, **kw: Any) -> ChatAnswer:
        return await asyncio.to_thread(self.sync.archive, session_id, archived, **kw)

    async def recap(self, session_id: str, **kw: Any) -> Recap:
        return await asyncio.to_thread(self.sync.recap, session_id, **kw)

    async def resume(self, session_id: str, **kw: Any) -> ResumeHandle:
        return await asyncio.to_thread(self.sync.resume, session_id, **kw)

    async def delete(self, session_id: str, **kw: Any) -> Deleted:
        return await asyncio.to_thread(self.sync.delete, session_id, **kw)

    async def list_all(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> AsyncIterator[Chat]:
        """Every chat list matches; each page is fetched in a worker thread as it is needed."""
        async for chat in _drain(self.sync.list_all(params, **kw)):
            yield chat

    async def search_all(self, params: Optional[Mapping[str, Any]] = None, **kw: Any) -> AsyncIterator[Dict[str, Any]]:
        async for hit in _drain(self.sync.search_all(params, **kw)):
            yield hit

    async def entries(self, session_id: str, **kw: Any) -> AsyncIterator[Entry]:
        """A chat's whole transcript, page by page."""
        async for e in _drain(self.sync.entries(session_id, **kw)):
            yield e

    async def create_chat(self, chat: ChatRecord) -> CreatedChat:
        return await asyncio.to_thread(self.sync.create_chat, chat)

    async def append_entries(self, chat_id: str, entries: Sequence[EntryRecord]) -> AppendResult:
        return await asyncio.to_thread(self.sync.append_entries, chat_id, entries)

    async def truncate_chat(self, chat_id: str, point: TruncatePoint) -> TruncateResult:
        return await asyncio.to_thread(self.sync.truncate_chat, chat_id, point)

    async def record_run(self, run: RunRecord) -> Run:
        return await asyncio.to_thread(self.sync.record_run, run)

    async def capture(self, ops: Sequence[CaptureOp]) -> CaptureResult:
        return await asyncio.to_thread(self.sync.capture, ops)

    async def ingest(self, jsonl: str) -> IngestReport:
        return await asyncio.to_thread(self.sync.ingest, jsonl)

    async def export_chat(self, chat_id: str, format: str = "markdown", scope: Optional[str] = None) -> str:
        return await asyncio.to_thread(self.sync.export_chat, chat_id, format, scope)

    async def chat_runs(self, chat_id: str, scope: Optional[str] = None) -> List[Run]:
        return await asyncio.to_thread(self.sync.chat_runs, chat_id, scope)

    async def health(self) -> Health:
        return await asyncio.to_thread(self.sync.health)

    async def backfill_embeddings(self) -> EmbeddingBackfill:
        return await asyncio.to_thread(self.sync.backfill_embeddings)


_END = object()


async def _drain(it: Iterator[Any]) -> AsyncIterator[Any]:
    """The items of a blocking iterator, each next() in a worker thread."""
    while True:
        item = await asyncio.to_thread(next, it, _END)
        if item is _END:
            return
        yield item


class AsyncRecorder:
    """A Recorder for an event loop: append() only queues (never blocks); batches are sent by
    await flush() and await close(), and when max_entries wait, in a worker thread."""

    def __init__(self, sink: Any, chat: ChatRecord, max_entries: int = 100) -> None:
        self._rec = Recorder(sink, chat, max_entries=1 << 62, flush_interval=0)
        self._max = max_entries
        self._queued = 0
        self._sending: Optional[asyncio.Task[CaptureResult]] = None
        self.chat_id = self._rec.chat_id

    def append(self, *entries: Dict[str, Any]) -> None:
        self._rec.append(*entries)
        self._queued += len(entries)
        if self._queued >= self._max and (self._sending is None or self._sending.done()):
            self._queued = 0
            self._sending = asyncio.ensure_future(asyncio.to_thread(self._rec.flush))

    def record_run(self, run: Dict[str, Any]) -> None:
        self._rec.record_run(run)

    def truncate(self, point: TruncatePoint) -> None:
        self._rec.truncate(point)

    async def flush(self) -> CaptureResult:
        if self._sending is not None:
            await self._sending
        self._queued = 0
        return await asyncio.to_thread(self._rec.flush)

    async def close(self) -> CaptureResult:
        return await self.flush()
