// The TypeScript client against a real `annals serve` (local mode and key mode).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { AnnalsError, API_VERSION, BestEffort, Client, Recorder } from "../dist/index.js";
import { createKey, startProxy, startServer } from "./harness.mjs";

/** Asserts that promise rejects with an AnnalsError of code (and status), answering it. */
async function rejectsWith(promise, code, status) {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof AnnalsError, `want an AnnalsError, got ${err}`);
    assert.equal(err.code, code, err.message);
    if (status !== undefined) assert.equal(err.status, status);
    return err;
  }
  assert.fail(`want ${code}, the call succeeded`);
}

describe("local mode", () => {
  let srv;
  let c;
  before(async () => {
    srv = await startServer();
    c = new Client(srv.url);
  });
  after(() => srv.stop());

  test("every op and capture call round-trips", async () => {
    const created = await c.createChat({ id: "ts-1", title: "Why is CI red?", tags: ["ci"], attributes: { repo: "o/r" } });
    assert.equal(created.created, true);
    assert.equal(created.chat.id, "ts-1");
    assert.equal((await c.createChat({ id: "ts-1", title: "Why is CI red?", tags: ["ci"], attributes: { repo: "o/r" } })).created, false);
    assert.equal(c.serverVersion, API_VERSION);

    const app = await c.appendEntries("ts-1", [
      { id: "m1", kind: "user", text: "why is the build red?" },
      { id: "m2", kind: "tool", tool: { name: "shell", arguments: { cmd: "make test" }, result: "FAIL flaky", outcome: "failed" } },
      { id: "m3", kind: "assistant", text: "A flaky integration test.", input_tokens: 10, output_tokens: 5 },
      { id: "m4", kind: "assistant", text: "to be cut" },
    ]);
    assert.deepEqual(app, { appended: 4, skipped: 0, last_seq: 4 });
    assert.deepEqual(await c.appendEntries("ts-1", [{ id: "m1", kind: "user", text: "why is the build red?" }]), { appended: 0, skipped: 1, last_seq: 4 });
    assert.deepEqual(await c.truncateChat("ts-1", { entry_id: "m4" }), { removed: 1, last_seq: 3 });
    const run = await c.recordRun({ id: "ts-1/r1", chat_id: "ts-1", status: "completed", model: "m", input_tokens: 812 });
    assert.equal(run.status, "completed");
    assert.deepEqual((await c.chatRuns("ts-1")).map((r) => r.id), ["ts-1/r1"]);

    const batch = await c.capture([
      { chat: { id: "ts-2", title: "second" } },
      { append: { chat_id: "ts-2", entries: [{ id: "a", kind: "user", text: "deploy pricing" }] } },
      { run: { id: "ts-2/r1", chat_id: "ts-2", status: "running" } },
    ]);
    assert.deepEqual(batch, { chats_created: 1, chats_unchanged: 0, entries_appended: 1, entries_skipped: 0, entries_removed: 0, runs_recorded: 1 });

    const ing = await c.ingest('{"type":"chat","id":"ts-3","title":"ingested"}\n{"type":"entry","chat_id":"ts-3","id":"e1","kind":"user","text":"hello"}\n');
    assert.equal(ing.lines, 2);

    const list = await c.list({ tag: "ci" });
    assert.deepEqual(list.chats.map((x) => x.id), ["ts-1"]);
    assert.equal(list.chats[0].totals.entries, 3);
    const found = await c.search({ query: "flaky" });
    assert.equal(found.chats?.[0].chat.id, "ts-1");
    assert.ok(found.chats?.[0].snippets?.some((s) => s.text.includes("«")));
    const entriesMode = await c.search({ query: "flaky", mode: "entries" });
    assert.ok(entriesMode.entries?.some((h) => h.entry.id === "m2"));
    const view = await c.get({ session_id: "ts-1" });
    assert.deepEqual(view.entries?.map((e) => e.id), ["m1", "m2", "m3"]);
    assert.deepEqual(view.entries?.[1].tool?.arguments, { cmd: "make test" });
    assert.match((await c.get({ session_id: "ts-1", format: "markdown" })).markdown ?? "", /Why is CI red\?/);
    assert.ok((await c.related({ session_id: "ts-1" })).model);
    assert.equal((await c.usage({ scope: "tenant" })).scope, "tenant");
    assert.equal((await c.rename({ session_id: "ts-1", title: "CI red" })).chat.title, "CI red");
    assert.equal((await c.annotate({ session_id: "ts-1", description: "flaky", tags: ["ci", "flaky"] })).chat.description, "flaky");
    assert.equal((await c.pin({ session_id: "ts-1" })).chat.pinned, true);
    assert.ok((await c.archive({ session_id: "ts-2" })).chat.archived_at);
    assert.ok((await c.recap({ session_id: "ts-1" })).summary.length > 0);
    assert.equal((await c.resume({ session_id: "ts-1" })).session_id, "ts-1");
    assert.match(await c.exportChat("ts-1"), /CI red/);
    assert.equal(JSON.parse(await c.exportChat("ts-1", { format: "json" })).entries.length, 3);
    assert.deepEqual(await c.delete({ session_id: "ts-3" }), { deleted: "ts-3" });
    assert.deepEqual((await c.health()).ok, true);
    assert.equal(typeof (await c.backfillEmbeddings()).complete, "boolean");
  });

  test("a 1,000-entry chat captured through a Recorder reads back whole, page by page", async () => {
    const rec = new Recorder(c, { id: "ts-long", title: "long" }, { maxEntries: 128, flushIntervalMs: 0 });
    for (let i = 0; i < 1000; i++) rec.append({ kind: i % 2 ? "assistant" : "user", text: `turn ${i}` });
    rec.recordRun({ id: "ts-long/r1", status: "completed" });
    await rec.close();
    const got = [];
    for await (const e of c.entries({ session_id: "ts-long", limit: 100 })) got.push(e);
    assert.equal(got.length, 1000);
    assert.deepEqual(got.map((e) => e.seq), Array.from({ length: 1000 }, (_, i) => i + 1));
    assert.equal(got[999].text, "turn 999");
    const ids = [];
    for await (const chat of c.listAll({ limit: 1 })) ids.push(chat.id);
    assert.ok(ids.includes("ts-long") && ids.length === new Set(ids).size, ids.join(","));
  });

  test("a batch larger than maxBatchBytes is split, and a failed op is named by its place in the whole batch", async () => {
    const small = new Client(srv.url, { maxBatchBytes: 300 });
    const ops = [{ chat: { id: "ts-split" } }];
    for (let i = 0; i < 20; i++) ops.push({ append: { chat_id: "ts-split", entries: [{ id: `e${i}`, kind: "user", text: `entry number ${i}` }] } });
    assert.equal((await small.capture(ops)).entries_appended, 20);
    ops.push({ append: { chat_id: "ts-split", entries: [{ id: "bad", kind: "nonsense" }] } });
    const err = await rejectsWith(small.capture(ops), "invalid", 400);
    assert.equal(err.index, 21);
  });

  test("errors carry the server's code and message", async () => {
    const nf = await rejectsWith(c.get({ session_id: "nope" }), "not_found", 404);
    assert.match(nf.message, /chat "nope" not found/);
    const inv = await rejectsWith(c.list({ status: "done" }), "invalid", 400);
    assert.match(inv.message, /unknown status "done"/);
    await rejectsWith(c.createChat({ id: "ts-1", tenant_id: "other" }), "conflict", 409);
    // An unknown op from a server of the client's own version is the caller's mistake.
    await rejectsWith(c.history({ op: "frobnicate" }), "invalid", 400);
    assert.throws(() => new Client("not a url"), AnnalsError);
  });

  test("a server of another API version lacking an op is not_implemented, naming both versions", async () => {
    const old = await startProxy(srv.url, { rewriteVersion: "0.9" });
    try {
      const err = await rejectsWith(new Client(old.url).history({ op: "frobnicate" }), "not_implemented");
      assert.match(err.message, /speaks API version 0\.9 and has no op "frobnicate", which this client \(API version 1\.0\) needs/);
      assert.equal(err.serverVersion, "0.9");
    } finally {
      await old.close();
    }
  });

  test("idempotent calls are retried through a server that fails every other request", async () => {
    const flaky = await startProxy(srv.url);
    try {
      const fc = new Client(flaky.url, { backoffMs: 1, retries: 3 });
      for (let i = 0; i < 6; i++) {
        assert.equal((await fc.createChat({ id: `ts-flaky-${i}` })).chat.id, `ts-flaky-${i}`);
        assert.equal((await fc.appendEntries(`ts-flaky-${i}`, [{ id: "x", kind: "user", text: "hi" }])).last_seq, 1);
        assert.equal((await fc.capture([{ append: { chat_id: `ts-flaky-${i}`, entries: [{ id: "y", kind: "assistant", text: "yo" }] } }])).entries_skipped + 1, 1);
        assert.equal((await fc.get({ session_id: `ts-flaky-${i}` })).entries?.length, 2);
      }
      assert.ok(flaky.requests() > 36, `${flaky.requests()} requests for 24 calls`);
      // delete is not idempotent in its answer: it is sent once, and its failure is the caller's.
      const before = flaky.requests();
      if (before % 2 === 0) await fc.health(); // the next request is one the proxy fails
      await rejectsWith(fc.delete({ session_id: "ts-flaky-0" }), "unavailable");
      const noRetry = new Client(flaky.url, { retries: 0 });
      if (flaky.requests() % 2 === 0) await fc.health();
      await rejectsWith(noRetry.list(), "unavailable");
    } finally {
      await flaky.close();
    }
  });
});

describe("key mode", () => {
  let srv;
  before(async () => {
    srv = await startServer((db) => ({
      admin: createKey(db, "--tenant", "acme", "--role", "admin"),
      bot: createKey(db, "--tenant", "acme", "--agent", "bot"),
      other: createKey(db, "--tenant", "other", "--agent", "bot"),
    }));
  });
  after(() => srv.stop());

  test("auth failures and scope refusals map to their codes", async () => {
    const err = await rejectsWith(new Client(srv.url).list(), "unauthorized", 401);
    assert.match(err.message, /a valid API key is required/);
    await rejectsWith(new Client(srv.url, { apiKey: "annals_wrong" }).list(), "unauthorized", 401);
    const bot = new Client(srv.url, { apiKey: srv.bot });
    await rejectsWith(bot.list({ scope: "tenant" }), "forbidden", 403);
    await rejectsWith(bot.createChat({ id: "k-1", agent_id: "someone-else" }), "forbidden", 403);
    assert.equal((await bot.createChat({ id: "k-1" })).chat.agent_id, "bot");
    assert.equal((await bot.list()).scope, "self");
    // Another tenant's chat is the same not_found as a missing one, for reads and writes.
    const other = new Client(srv.url, { apiKey: srv.other });
    await rejectsWith(other.get({ session_id: "k-1" }), "not_found", 404);
    await rejectsWith(other.appendEntries("k-1", [{ id: "x", kind: "user", text: "mine now" }]), "not_found", 404);
    await rejectsWith(bot.backfillEmbeddings(), "forbidden", 403);
    assert.equal((await new Client(srv.url, { apiKey: srv.admin }).backfillEmbeddings()).complete, true);
  });

  test("best effort: an unauthorized capture warns once and turns capture off; a bad batch is dropped", async () => {
    const warnings = [];
    const be = new BestEffort(new Client(srv.url, { apiKey: srv.bot }), (m, e) => warnings.push(`${m}: ${e.code}`));
    await be.capture([{ append: { chat_id: "missing", entries: [{ id: "x", kind: "user" }] } }]);
    assert.equal(be.disabled, false);
    assert.deepEqual(warnings, ["annals: a capture batch was refused and dropped: not_found"]);
    const off = new BestEffort(new Client(srv.url, { apiKey: "annals_revoked" }), (m, e) => warnings.push(`${m}: ${e.code}`));
    await off.capture([{ chat: { id: "k-2" } }]);
    await off.capture([{ chat: { id: "k-3" } }]);
    assert.equal(off.disabled, true);
    assert.equal(off.failure?.code, "unauthorized");
    assert.equal(warnings.length, 2);
  });
});

describe("best effort with the server down", () => {
  test("capture never throws, warns once, then sends nothing", async () => {
    const srv = await startServer();
    const url = srv.url;
    await srv.stop();
    let fetches = 0;
    const counting = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const warnings = [];
    const be = new BestEffort(new Client(url, { fetch: counting, retries: 2, backoffMs: 1 }), (m, e) => warnings.push(`${m}: ${e.code}`));
    const rec = new Recorder(be, { id: "down-1" }, { flushIntervalMs: 0 });
    rec.append({ kind: "user", text: "hello" });
    assert.equal((await rec.flush()).entries_appended, 0);
    const sent = fetches;
    assert.equal(sent, 3, "one call and its two retries");
    rec.append({ kind: "assistant", text: "still running" });
    await rec.close();
    await be.capture([{ chat: { id: "down-2" } }]);
    assert.equal(fetches, sent, "nothing is sent once capture is off");
    assert.equal(be.disabled, true);
    assert.equal(be.failure?.code, "unavailable");
    assert.deepEqual(warnings, ["annals: history unavailable, capture is off for the rest of this process: unavailable"]);
  });
});

describe("the README's example", () => {
  test("examples/agent-loop.mjs captures its loop and finds it again", async () => {
    const srv = await startServer();
    try {
      const { execFile } = await import("node:child_process");
      const out = await new Promise((resolve, reject) =>
        execFile(process.execPath, ["examples/agent-loop.mjs"], { env: { ...process.env, ANNALS_URL: srv.url } }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
      assert.match(out, /search "flaky" finds: example-\d+/);
      assert.match(out, /^6 assistant: I looked at "which test\?"/m);
    } finally {
      await srv.stop();
    }
  });
});
