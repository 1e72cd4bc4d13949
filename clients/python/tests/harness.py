"""A real `annals serve` for the tests: on :0, on its own database in a temporary folder. The
binary is $ANNALS_BIN (clients/clients_test.go builds it), or built here with `go build`."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, Optional

REPO = Path(__file__).resolve().parents[3]
_built: Dict[str, str] = {}


def binary() -> str:
    if os.environ.get("ANNALS_BIN"):
        return os.environ["ANNALS_BIN"]
    if "bin" not in _built:
        out = os.path.join(tempfile.mkdtemp(prefix="annals-bin-"), "annals")
        subprocess.run(["go", "build", "-o", out, "./cmd/annals"], cwd=REPO, check=True)
        _built["bin"] = out
    return _built["bin"]


def _env(folder: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANNALS_")}
    env.update(XDG_CONFIG_HOME=folder, XDG_DATA_HOME=folder)
    return env


def create_key(db: str, *args: str) -> str:
    out = subprocess.run([binary(), "keys", "create", "--db", db, "--json", *args], env=_env(os.path.dirname(db)),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["secret"]


class Server:
    """A running annals serve; keys(db) runs before it starts (none: local mode)."""

    def __init__(self, keys: Optional[Callable[[str], Dict[str, str]]] = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="annals-py-")
        self.db = os.path.join(self.dir, "annals.db")
        subprocess.run([binary(), "migrate", "--db", self.db], env=_env(self.dir), check=True, capture_output=True)
        self.keys = keys(self.db) if keys else {}
        port_file = os.path.join(self.dir, "port.json")
        self.proc = subprocess.Popen([binary(), "serve", "--db", self.db, "--addr", "127.0.0.1:0", "--port-file", port_file],
                                     env=_env(self.dir), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port = None
        for _ in range(400):
            if self.proc.poll() is not None:
                raise RuntimeError(f"annals serve exited {self.proc.returncode}: {self.proc.stderr.read().decode()}")
            try:
                port = json.loads(Path(port_file).read_text())["port"]
                break
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
        if port is None:
            self.stop()
            raise RuntimeError("annals serve wrote no port file")
        self.url = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            self.proc.wait(timeout=30)
        self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Proxy:
    """A proxy in front of target that fails every other request, alternating a 503 answer and a
    dropped connection. rewrite_version, when set, replaces the server's Annals-Api-Version
    header (a server of another API version) and fails nothing."""

    def __init__(self, target: str, rewrite_version: Optional[str] = None) -> None:
        self.requests = 0
        lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with lock:
                    proxy.requests += 1
                    n = proxy.requests
                if rewrite_version is None and n % 2 == 0:
                    if n % 4 == 0:
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    msg = b'{"error":{"code":"unavailable","message":"the proxy fails every other request"}}'
                    self.send_response(503)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(msg)))
                    self.end_headers()
                    self.wfile.write(msg)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                req = urllib.request.Request(target + self.path, data=body if self.command == "POST" else None,
                                             headers=headers, method=self.command)
                try:
                    resp = urllib.request.urlopen(req)
                except urllib.error.HTTPError as e:
                    resp = e
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.headers.items():
                    if k.lower() in ("content-length", "transfer-encoding", "connection", "date", "server"):
                        continue
                    if k.lower() == "annals-api-version" and rewrite_version is not None:
                        v = rewrite_version
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = _any
            do_POST = _any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
