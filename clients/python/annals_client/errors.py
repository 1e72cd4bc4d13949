"""AnnalsError, the one error of the client, and how an answer becomes one."""

from __future__ import annotations

import json
import re
from typing import Optional

API_VERSION = "1.0"
"""The API version this client speaks (annals.APIVersion); the package's major.minor is the same."""
API_VERSION_HEADER = "Annals-Api-Version"
"""The header every answer of the server names its API version in."""

_CODE_BY_STATUS = {
    400: "invalid", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method_not_allowed",
    409: "conflict", 413: "too_large", 429: "too_many_requests", 501: "not_implemented",
    502: "unavailable", 503: "unavailable", 504: "unavailable",
}


class AnnalsError(Exception):
    """Every failure of the client: the server's error code and message, the HTTP status (0 when
    the server was not reached), the failed op of a capture batch (index) and the server's API
    version."""

    def __init__(self, code: str, message: str, status: int = 0, index: Optional[int] = None,
                 server_version: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.index = index
        self.server_version = server_version

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def with_index(self, index: int) -> "AnnalsError":
        """A copy naming another op of a batch (the batch went in several requests)."""
        err = AnnalsError(self.code, self.message, self.status, index, self.server_version)
        err.__cause__ = self.__cause__
        return err


def missing_on_server(server_version: Optional[str], what: str, status: int) -> AnnalsError:
    """The error of a server that lacks what this client needs, naming both API versions."""
    server = f"API version {server_version}" if server_version else f"an API version older than {API_VERSION} (it names none)"
    return AnnalsError(
        "not_implemented",
        f"the annals server speaks {server} and has no {what}, which this client (API version {API_VERSION}) needs: "
        "upgrade the server, or use a client of the server's API version",
        status, None, server_version)


def error_of_answer(method: str, path: str, status: int, server_version: Optional[str], body: bytes) -> AnnalsError:
    """The AnnalsError of a non-2xx answer."""
    try:
        detail = json.loads(body.decode("utf-8")).get("error")
    except (ValueError, AttributeError, UnicodeDecodeError):
        detail = None
    if not isinstance(detail, dict) or not isinstance(detail.get("code"), str):
        code = _CODE_BY_STATUS.get(status, "internal")
        return AnnalsError(code, f"the server answered {status} to {method} {path}", status, None, server_version)
    message = str(detail.get("message", ""))
    if status == 404 and message.startswith("no route "):
        return missing_on_server(server_version, f"route {method} {path}", status)
    unknown_op = re.match(r'^unknown op "([^"]*)"', message)
    if detail["code"] == "invalid" and unknown_op and server_version != API_VERSION:
        return missing_on_server(server_version, f'op "{unknown_op.group(1)}"', status)
    index = detail.get("index")
    return AnnalsError(detail["code"], message, status, index if isinstance(index, int) else None, server_version)
