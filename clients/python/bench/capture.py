"""Capture throughput of the Python client: python3 bench/capture.py URL CHAT TOTAL BATCH appends
TOTAL entries to a new chat in requests of BATCH (POST /v1/sessions/{id}/entries) and prints
{"entries", "seconds", "cpu_seconds"} (this process's CPU while capturing). The entries are the
ones clients/throughput_bench_test.go and bench/capture.mjs send."""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annals_client import Client  # noqa: E402

url, chat, total, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
c = Client(url, os.environ.get("ANNALS_KEY"))
c.create_chat({"id": chat, "title": "capture throughput"})


def entry(i: int) -> dict:
    return {"id": f"e{i}", "kind": "assistant" if i % 2 else "user",
            "text": f"turn {i}: the build failed in TestUpload because the fixture server timed out after 30 seconds; "
                    f"retrying with a longer deadline and logging the request ids of every upload ({i})"}


cpu0, t0 = time.process_time(), time.perf_counter()
for i in range(0, total, batch):
    c.append_entries(chat, [entry(j) for j in range(i, min(total, i + batch))])
seconds = time.perf_counter() - t0
print(json.dumps({"entries": total, "seconds": seconds, "cpu_seconds": time.process_time() - cpu0}))
