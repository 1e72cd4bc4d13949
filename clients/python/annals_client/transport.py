"""The HTTP layer of a Client: one kept-alive connection per thread, auth, timeouts, retries of
idempotent calls with backoff, and errors as AnnalsError."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.parse
from typing import Any, Dict, Optional, Set

from .errors import API_VERSION_HEADER, AnnalsError, error_of_answer

# Statuses whose request may succeed if sent again: the server busy, at its request timeout, or
# a proxy in front of it failing.
_RETRYABLE = {429, 502, 503, 504}


class Transport:
    def __init__(self, base_url: str, api_key: Optional[str] = None, retries: int = 3, backoff: float = 0.1,
                 max_backoff: float = 5.0, timeout: float = 60.0, max_batch_bytes: int = 4 << 20,
                 headers: Optional[Dict[str, str]] = None) -> None:
        self._all: Set[http.client.HTTPConnection] = set()
        self._all_lock = threading.Lock()
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise AnnalsError("invalid", f"the annals server URL {base_url!r} is not an http or https URL (want e.g. http://127.0.0.1:7457)")
        self.base_url = base_url.rstrip("/")
        self._https = u.scheme == "https"
        self._host = u.hostname
        self._port = u.port
        self._prefix = u.path.rstrip("/")
        self._api_key = api_key
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.max_batch_bytes = max_batch_bytes
        self._headers = dict(headers or {})
        self._local = threading.local()
        self.server_version: Optional[str] = None
        """The API version the server named in its last answer."""

    def _conn(self, fresh: bool) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and fresh:
            self._drop()
            conn = None
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self.timeout)
            self._local.conn = conn
            with self._all_lock:
                self._all.add(conn)
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            with self._all_lock:
                self._all.discard(conn)

    def close(self) -> None:
        """Closes every thread's connection (a thread that calls again opens a new one)."""
        with self._all_lock:
            conns, self._all = self._all, set()
        for conn in conns:
            conn.close()

    def __del__(self) -> None:
        self.close()

    def request(self, method: str, path: str, body: Optional[bytes], content_type: Optional[str], idempotent: bool) -> bytes:
        """Sends one call, retried if idempotent, and answers the 2xx answer's body."""
        headers = {"Accept": "application/json", **self._headers}
        if content_type:
            headers["Content-Type"] = content_type
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        retries = self.retries if idempotent else 0
        attempt = 0
        while True:
            try:
                # A call that must not be sent twice gets a fresh connection, never one the server
                # may have closed while it was idle.
                conn = self._conn(fresh=not idempotent)
                conn.request(method, self._prefix + path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException) as e:
                self._drop()
                if attempt >= retries:
                    raise AnnalsError("unavailable", f"cannot reach the annals server at {self.base_url}: {e!r}") from e
                self._sleep(attempt, 0)
                attempt += 1
                continue
            if resp.will_close:
                self._drop()
            version = resp.getheader(API_VERSION_HEADER)
            if version:
                self.server_version = version
            if 200 <= resp.status < 300:
                return data
            err = error_of_answer(method, path, resp.status, version, data)
            if attempt >= retries or resp.status not in _RETRYABLE:
                raise err
            self._sleep(attempt, _retry_after(resp.getheader("Retry-After")))
            attempt += 1

    def json(self, method: str, path: str, body: Any = None, idempotent: bool = True, raw: Optional[bytes] = None,
             content_type: str = "application/json") -> Any:
        """Sends body (JSON-encoded, or raw bytes) and decodes the JSON answer."""
        data = raw if raw is not None else (None if body is None else json.dumps(body, separators=(",", ":")).encode("utf-8"))
        out = self.request(method, path, data, content_type if data is not None else None, idempotent)
        try:
            return json.loads(out.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise AnnalsError("unavailable", f"the server's answer to {method} {path} is not valid JSON") from e

    def _sleep(self, attempt: int, floor: float) -> None:
        base = min(self.max_backoff, self.backoff * (2 ** attempt))
        time.sleep(min(self.max_backoff, max(floor, random.uniform(0, base))))


def _retry_after(header: Optional[str]) -> float:
    try:
        s = float(header) if header is not None else 0.0
    except ValueError:
        return 0.0
    return s if s > 0 else 0.0
