"""A minimal agent loop that captures its transcript into annals and reads it back.

    ANNALS_URL=http://127.0.0.1:7457 ANNALS_KEY=annals_... python3 examples/agent_loop.py
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # not needed once annals-client is installed

from annals_client import BestEffort, Client, Recorder  # noqa: E402

client = Client(os.environ.get("ANNALS_URL", "http://127.0.0.1:7457"), os.environ.get("ANNALS_KEY"))
chat_id = f"example-{int(time.time() * 1000)}"


def model(prompt: str) -> str:  # your model call
    return f'I looked at "{prompt}": a flaky integration test.'


# Best effort: if annals is down, the agent keeps running (one warning, then capture is off).
with Recorder(BestEffort(client), {"id": chat_id, "title": "Why is CI red?", "attributes": {"source": "agent-loop"}}) as rec:
    for prompt in ["why is CI red?", "which test?"]:
        rec.append({"kind": "user", "text": prompt})
        rec.append({"kind": "tool", "tool": {"name": "shell", "arguments": {"cmd": "make test"}, "result": "FAIL TestUpload", "outcome": "failed"}})
        rec.append({"kind": "assistant", "text": model(prompt)})
    rec.record_run({"id": f"{chat_id}/run-1", "status": "completed", "model": "example-model", "input_tokens": 812, "output_tokens": 64})

hits = client.search(query="flaky")
print(f'captured {chat_id}; search "flaky" finds:', ", ".join(h["chat"]["id"] for h in hits.get("chats", [])))
for e in client.entries(chat_id):
    print(f'{e["seq"]} {e["kind"]}: {e.get("text") or e["tool"]["name"]}')
