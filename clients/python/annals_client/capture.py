"""Streaming and best-effort capture: Recorder batches one chat's entries; BestEffort keeps a
store failure from ever reaching the agent."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence

from .client import zero_result
from .errors import AnnalsError
from .types import CaptureOp, CaptureResult, ChatRecord, TruncatePoint

log = logging.getLogger("annals_client")


class CaptureSink(Protocol):
    """Anything that takes capture batches: a Client, or a BestEffort in front of one."""

    def capture(self, ops: Sequence[CaptureOp]) -> CaptureResult: ...


Warn = Callable[[str, AnnalsError], None]


def _log_warning(message: str, err: AnnalsError) -> None:
    log.warning("%s: %s", message, err)


class BestEffort:
    """Best-effort capture, as the Go library's besteffort package: capture() never raises. The
    first failure of the store itself (unreachable, unavailable, unauthorized, forbidden,
    internal, ...) is warned once and turns capture off for the rest of the process; a batch
    refused for what it is (invalid, conflict, not_found) is dropped with a warning and capture
    stays on."""

    def __init__(self, sink: CaptureSink, warn: Warn = _log_warning) -> None:
        self._sink = sink
        self._warn = warn
        self._lock = threading.Lock()
        self.failure: Optional[AnnalsError] = None
        """The failure that turned capture off, if any."""
        self.last_error: Optional[AnnalsError] = None
        """The last error, a dropped batch's included."""

    @property
    def disabled(self) -> bool:
        return self.failure is not None

    def capture(self, ops: Sequence[CaptureOp]) -> CaptureResult:
        if self.disabled or not ops:
            return zero_result()
        try:
            return self._sink.capture(ops)
        except Exception as e:  # noqa: BLE001 — nothing may reach the agent
            err = e if isinstance(e, AnnalsError) else AnnalsError("internal", repr(e))
            with self._lock:
                self.last_error = err
                if err.code in ("invalid", "conflict", "not_found"):
                    message = "annals: a capture batch was refused and dropped"
                elif self.failure is None:
                    self.failure = err
                    message = "annals: history unavailable, capture is off for the rest of this process"
                else:
                    return zero_result()
            self._warn(message, err)
            return zero_result()


class Recorder:
    """Streaming capture of one chat: append entries as the agent produces them; they go to the
    server in batches (one POST /v1/capture each, the chat's create op with the first), once
    max_entries wait or flush_interval seconds have passed since the last batch (checked on each
    append), and on flush() and close(). Entries are idempotent by id, so a batch retried after a
    lost answer is stored once. A failed batch raises from the call that sent it (or nowhere,
    with a BestEffort sink); the recorder then refuses further batches with that error."""

    def __init__(self, sink: CaptureSink, chat: ChatRecord, max_entries: int = 100, flush_interval: float = 1.0) -> None:
        self.chat_id = chat["id"]
        self._sink = sink
        self._chat: Optional[ChatRecord] = chat
        self._max_entries = max_entries
        self._interval = flush_interval
        self._pending: List[CaptureOp] = []
        self._pending_entries = 0
        self._seq = 0
        self._last_flush = time.monotonic()
        self._failed: Optional[BaseException] = None
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, *entries: Dict[str, Any]) -> None:
        """Queues entries (an entry without id gets "<chat id>/<n>"), sending a batch when due."""
        with self._lock:
            with_ids = []
            for e in entries:
                if "id" not in e:
                    self._seq += 1
                    e = {**e, "id": f"{self.chat_id}/{self._seq}"}
                with_ids.append(e)
            last = self._pending[-1] if self._pending else None
            if last is not None and "append" in last:
                last["append"]["entries"].extend(with_ids)
            else:
                self._pending.append({"append": {"chat_id": self.chat_id, "entries": with_ids}})
            self._pending_entries += len(with_ids)
            due = self._pending_entries >= self._max_entries or (self._interval > 0 and time.monotonic() - self._last_flush >= self._interval)
        if due:
            self.flush()

    def record_run(self, run: Dict[str, Any]) -> None:
        """Queues a run of this chat (an upsert by id)."""
        with self._lock:
            self._pending.append({"run": {**run, "chat_id": self.chat_id}})

    def truncate(self, point: TruncatePoint) -> None:
        """Queues a truncation: the entry at point and every entry after it go."""
        with self._lock:
            self._pending.append({"truncate": {"chat_id": self.chat_id, "point": dict(point)}})

    def flush(self) -> CaptureResult:
        """Sends what waits."""
        # Batches go one at a time, in order; append only waits for the queue, never for a send.
        with self._send_lock:
            with self._lock:
                if self._failed is not None:
                    raise self._failed
                ops, self._pending, self._pending_entries = self._pending, [], 0
                if self._chat is not None:
                    ops.insert(0, {"chat": dict(self._chat)})
                    self._chat = None
                self._last_flush = time.monotonic()
            if not ops:
                return zero_result()
            try:
                return self._sink.capture(ops)
            except BaseException as e:
                self._failed = e
                raise

    def close(self) -> CaptureResult:
        """Flushes what waits."""
        return self.flush()
