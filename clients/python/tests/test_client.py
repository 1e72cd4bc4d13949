"""The Python client against a real `annals serve` (local mode and key mode)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from annals_client import API_VERSION, AnnalsError, AsyncClient, AsyncRecorder, BestEffort, Client, Recorder  # noqa: E402
from tests.harness import Proxy, Server, create_key  # noqa: E402


class LocalMode(unittest.TestCase):
    srv: Server
    c: Client

    @classmethod
    def setUpClass(cls) -> None:
        cls.srv = Server()
        cls.c = Client(cls.srv.url)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.c.close()
        cls.srv.stop()

    def raises(self, code: str, fn, *args, **kw) -> AnnalsError:  # type: ignore[no-untyped-def]
        with self.assertRaises(AnnalsError) as cm:
            fn(*args, **kw)
        self.assertEqual(cm.exception.code, code, cm.exception.message)
        return cm.exception

    def test_every_op_and_capture_call_round_trips(self) -> None:
        c = self.c
        chat = {"id": "py-1", "title": "Why is CI red?", "tags": ["ci"], "attributes": {"repo": "o/r"}}
        self.assertTrue(c.create_chat(chat)["created"])
        self.assertFalse(c.create_chat(chat)["created"])
        self.assertEqual(c.server_version, API_VERSION)
        app = c.append_entries("py-1", [
            {"id": "m1", "kind": "user", "text": "why is the build red?"},
            {"id": "m2", "kind": "tool", "tool": {"name": "shell", "arguments": {"cmd": "make test"}, "result": "FAIL flaky", "outcome": "failed"}},
            {"id": "m3", "kind": "assistant", "text": "A flaky integration test.", "input_tokens": 10},
            {"id": "m4", "kind": "assistant", "text": "to be cut"},
        ])
        self.assertEqual(app, {"appended": 4, "skipped": 0, "last_seq": 4})
        self.assertEqual(c.append_entries("py-1", [{"id": "m1", "kind": "user", "text": "why is the build red?"}])["skipped"], 1)
        self.assertEqual(c.truncate_chat("py-1", {"entry_id": "m4"}), {"removed": 1, "last_seq": 3})
        self.assertEqual(c.record_run({"id": "py-1/r1", "chat_id": "py-1", "status": "completed", "input_tokens": 812})["status"], "completed")
        self.assertEqual([r["id"] for r in c.chat_runs("py-1")], ["py-1/r1"])
        res = c.capture([
            {"chat": {"id": "py-2", "title": "second"}},
            {"append": {"chat_id": "py-2", "entries": [{"id": "a", "kind": "user", "text": "deploy pricing"}]}},
            {"run": {"id": "py-2/r1", "chat_id": "py-2", "status": "running"}},
        ])
        self.assertEqual(res, {"chats_created": 1, "chats_unchanged": 0, "entries_appended": 1, "entries_skipped": 0, "entries_removed": 0, "runs_recorded": 1})
        ing = c.ingest('{"type":"chat","id":"py-3","title":"ingested"}\n{"type":"entry","chat_id":"py-3","id":"e1","kind":"user","text":"hello"}\n')
        self.assertEqual(ing["lines"], 2)

        page = c.list(tag="ci")
        self.assertEqual([x["id"] for x in page["chats"]], ["py-1"])
        self.assertEqual(page["chats"][0]["totals"]["entries"], 3)
        found = c.search(query="flaky")
        self.assertEqual(found["chats"][0]["chat"]["id"], "py-1")
        self.assertTrue(any(h["entry"]["id"] == "m2" for h in c.search({"query": "flaky", "mode": "entries"})["entries"]))
        self.assertEqual(c.search(query="pricing", in_=["body"], from_="2000-01-01")["chats"][0]["chat"]["id"], "py-2")
        view = c.get(session_id="py-1")
        self.assertEqual([e["id"] for e in view["entries"]], ["m1", "m2", "m3"])
        self.assertEqual(view["entries"][1]["tool"]["arguments"], {"cmd": "make test"})
        self.assertIn("Why is CI red?", c.get(session_id="py-1", format="markdown")["markdown"])
        self.assertTrue(c.related(session_id="py-1")["model"])
        self.assertEqual(c.usage(scope="tenant")["scope"], "tenant")
        self.assertEqual(c.rename("py-1", "CI red")["chat"]["title"], "CI red")
        self.assertEqual(c.annotate("py-1", description="flaky", tags=["ci", "flaky"])["chat"]["tags"], ["ci", "flaky"])
        self.assertTrue(c.pin("py-1")["chat"]["pinned"])
        self.assertIn("archived_at", c.archive("py-2")["chat"])
        self.assertTrue(c.recap("py-1")["summary"])
        self.assertEqual(c.resume("py-1")["session_id"], "py-1")
        self.assertIn("CI red", c.export_chat("py-1"))
        self.assertEqual(len(json.loads(c.export_chat("py-1", format="json"))["entries"]), 3)
        self.assertEqual(c.delete("py-3"), {"deleted": "py-3"})
        self.assertTrue(c.health()["ok"])
        self.assertIsInstance(c.backfill_embeddings()["complete"], bool)

    def test_a_1000_entry_chat_captured_through_a_recorder_reads_back_whole(self) -> None:
        with Recorder(self.c, {"id": "py-long", "title": "long"}, max_entries=128, flush_interval=0) as rec:
            for i in range(1000):
                rec.append({"kind": "assistant" if i % 2 else "user", "text": f"turn {i}"})
            rec.record_run({"id": "py-long/r1", "status": "completed"})
        got = list(self.c.entries("py-long", limit=100))
        self.assertEqual([e["seq"] for e in got], list(range(1, 1001)))
        self.assertEqual(got[999]["text"], "turn 999")
        ids = [chat["id"] for chat in self.c.list_all(limit=1)]
        self.assertIn("py-long", ids)
        self.assertEqual(len(ids), len(set(ids)))

    def test_a_large_batch_is_split_and_a_failed_op_is_named_in_the_whole_batch(self) -> None:
        small = Client(self.srv.url, max_batch_bytes=300)
        ops = [{"chat": {"id": "py-split"}}] + [
            {"append": {"chat_id": "py-split", "entries": [{"id": f"e{i}", "kind": "user", "text": f"entry number {i}"}]}} for i in range(20)]
        self.assertEqual(small.capture(ops)["entries_appended"], 20)
        ops.append({"append": {"chat_id": "py-split", "entries": [{"id": "bad", "kind": "nonsense"}]}})
        err = self.raises("invalid", small.capture, ops)
        self.assertEqual(err.index, 21)
        self.assertEqual(err.status, 400)

    def test_errors_carry_the_servers_code_and_message(self) -> None:
        self.assertIn('chat "nope" not found', self.raises("not_found", self.c.get, session_id="nope").message)
        self.assertIn('unknown status "done"', self.raises("invalid", self.c.list, status="done").message)
        self.c.create_chat({"id": "py-err"})
        self.raises("conflict", self.c.create_chat, {"id": "py-err", "tenant_id": "other"})
        self.raises("invalid", self.c.history, {"op": "frobnicate"})
        self.raises("invalid", Client, "not a url")

    def test_a_server_of_another_version_lacking_an_op_is_not_implemented(self) -> None:
        old = Proxy(self.srv.url, rewrite_version="0.9")
        try:
            err = self.raises("not_implemented", Client(old.url).history, {"op": "frobnicate"})
            self.assertIn('speaks API version 0.9 and has no op "frobnicate", which this client (API version 1.0) needs', err.message)
            self.assertEqual(err.server_version, "0.9")
        finally:
            old.close()

    def test_idempotent_calls_are_retried_through_a_server_failing_every_other_request(self) -> None:
        flaky = Proxy(self.srv.url)
        try:
            fc = Client(flaky.url, backoff=0.001)
            for i in range(6):
                self.assertEqual(fc.create_chat({"id": f"py-flaky-{i}"})["chat"]["id"], f"py-flaky-{i}")
                self.assertEqual(fc.append_entries(f"py-flaky-{i}", [{"id": "x", "kind": "user", "text": "hi"}])["last_seq"], 1)
                fc.capture([{"append": {"chat_id": f"py-flaky-{i}", "entries": [{"id": "y", "kind": "assistant", "text": "yo"}]}}])
                self.assertEqual(len(fc.get(session_id=f"py-flaky-{i}")["entries"]), 2)
            self.assertGreater(flaky.requests, 36)
            # delete is sent once: its failure is the caller's.
            if flaky.requests % 2 == 0:
                fc.health()
            self.raises("unavailable", fc.delete, "py-flaky-0")
            if flaky.requests % 2 == 0:
                fc.health()
            self.raises("unavailable", Client(flaky.url, retries=0).list)
        finally:
            flaky.close()

    def test_async_client_and_recorder(self) -> None:
        async def main() -> list:
            ac = AsyncClient(self.srv.url)
            rec = AsyncRecorder(ac.sync, {"id": "py-async"}, max_entries=10)
            for i in range(25):
                rec.append({"kind": "user", "text": f"async {i}"})
            await rec.close()
            self.assertEqual((await ac.search(query="async"))["chats"][0]["chat"]["id"], "py-async")
            return [e async for e in ac.entries("py-async", limit=7)]

        got = asyncio.run(main())
        self.assertEqual([e["text"] for e in got], [f"async {i}" for i in range(25)])

    def test_the_readme_example_runs(self) -> None:
        env = {**os.environ, "ANNALS_URL": self.srv.url}
        example = Path(__file__).resolve().parents[1] / "examples" / "agent_loop.py"
        out = subprocess.run([sys.executable, str(example)], env=env, check=True, capture_output=True, text=True).stdout
        self.assertRegex(out, r'search "flaky" finds: .*example-\d+')
        self.assertRegex(out, r'(?m)^6 assistant: I looked at "which test\?"')


class KeyMode(unittest.TestCase):
    srv: Server

    @classmethod
    def setUpClass(cls) -> None:
        cls.srv = Server(lambda db: {
            "admin": create_key(db, "--tenant", "acme", "--role", "admin"),
            "bot": create_key(db, "--tenant", "acme", "--agent", "bot"),
            "other": create_key(db, "--tenant", "other", "--agent", "bot"),
        })

    @classmethod
    def tearDownClass(cls) -> None:
        cls.srv.stop()

    def code(self, fn, *args, **kw) -> AnnalsError:  # type: ignore[no-untyped-def]
        with self.assertRaises(AnnalsError) as cm:
            fn(*args, **kw)
        return cm.exception

    def test_auth_failures_and_scope_refusals_map_to_their_codes(self) -> None:
        k = self.srv.keys
        err = self.code(Client(self.srv.url).list)
        self.assertEqual((err.code, err.status), ("unauthorized", 401))
        self.assertIn("a valid API key is required", err.message)
        self.assertEqual(self.code(Client(self.srv.url, "annals_wrong").list).code, "unauthorized")
        bot = Client(self.srv.url, k["bot"])
        self.assertEqual(self.code(bot.list, scope="tenant").code, "forbidden")
        self.assertEqual(self.code(bot.create_chat, {"id": "k-1", "agent_id": "someone-else"}).code, "forbidden")
        self.assertEqual(bot.create_chat({"id": "k-1"})["chat"]["agent_id"], "bot")
        self.assertEqual(bot.list()["scope"], "self")
        other = Client(self.srv.url, k["other"])
        self.assertEqual(self.code(other.get, session_id="k-1").code, "not_found")
        self.assertEqual(self.code(other.append_entries, "k-1", [{"id": "x", "kind": "user", "text": "mine"}]).code, "not_found")
        self.assertEqual(self.code(bot.backfill_embeddings).status, 403)
        self.assertTrue(Client(self.srv.url, k["admin"]).backfill_embeddings()["complete"])

    def test_best_effort_warns_once_and_turns_capture_off_and_drops_a_bad_batch(self) -> None:
        warnings: list = []
        be = BestEffort(Client(self.srv.url, self.srv.keys["bot"]), lambda m, e: warnings.append(f"{m}: {e.code}"))
        be.capture([{"append": {"chat_id": "missing", "entries": [{"id": "x", "kind": "user"}]}}])
        self.assertFalse(be.disabled)
        self.assertEqual(warnings, ["annals: a capture batch was refused and dropped: not_found"])
        off = BestEffort(Client(self.srv.url, "annals_revoked"), lambda m, e: warnings.append(f"{m}: {e.code}"))
        off.capture([{"chat": {"id": "k-2"}}])
        off.capture([{"chat": {"id": "k-3"}}])
        self.assertTrue(off.disabled)
        self.assertEqual(off.failure.code, "unauthorized")  # type: ignore[union-attr]
        self.assertEqual(len(warnings), 2)


class ServerDown(unittest.TestCase):
    def test_best_effort_never_raises_warns_once_then_sends_nothing(self) -> None:
        srv = Server()
        url = srv.url
        srv.stop()
        calls = []

        class Counting(Client):
            def capture(self, ops):  # type: ignore[no-untyped-def]
                calls.append(len(ops))
                return super().capture(ops)

        warnings: list = []
        be = BestEffort(Counting(url, retries=2, backoff=0.001), lambda m, e: warnings.append(f"{m}: {e.code}"))
        rec = Recorder(be, {"id": "down-1"}, flush_interval=0)
        rec.append({"kind": "user", "text": "hello"})
        self.assertEqual(rec.flush()["entries_appended"], 0)
        rec.append({"kind": "assistant", "text": "still running"})
        rec.close()
        be.capture([{"chat": {"id": "down-2"}}])
        self.assertEqual(calls, [2], "one batch reached the client; nothing after capture went off")
        self.assertTrue(be.disabled)
        self.assertEqual(be.failure.code, "unavailable")  # type: ignore[union-attr]
        self.assertEqual(warnings, ["annals: history unavailable, capture is off for the rest of this process: unavailable"])


if __name__ == "__main__":
    unittest.main()
