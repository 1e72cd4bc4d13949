#!/usr/bin/env python3
"""Answers lanius's history view queries on a lanius.db by the reference's documented rules
(reference 003 and its published behaviour), and compares them with annals's answers.

    python3 reference_answers.py answer  DIR   # DIR/cases.jsonl + DIR/lanius.db -> DIR/reference.jsonl
    python3 reference_answers.py compare DIR   # DIR/reference.jsonl vs DIR/annals.jsonl

DIR/annals.jsonl comes from `go test ./queryview -run TestLaniusViewAnswersDump` with
ANNALS_LANIUS_BENCH_DIR=DIR (docs/QUERYVIEW.md, "Measured against the reference"). The compare
step looks only at the fields the reference returns; annals's extra fields are ignored.
Written for annals from the reference's documentation; it is a measuring tool, not part of the
product.
"""
import json
import sqlite3
import sys

CAP = 16 * 1024
PREVIEW = 2048
PAGE_DEFAULT, PAGE_MAX = 80, 200
EVENTS_MAX = 500


def stored(text):
    """A stored JSON text as the view answers it: capped, parsed, or the raw string."""
    if text is None:
        return None
    if len(text) > CAP:
        return {"truncated": True, "chars": len(text), "preview": text[:PREVIEW]}
    try:
        return json.loads(text)
    except ValueError:
        return text


def noun(event_type):
    parts = (event_type or "").split("/")
    if len(parts) >= 3 and parts[0] == "in" and parts[1] == "agent":
        return parts[2]
    return None


def clamp(v, default, top):
    return max(1, min(int(v or default), top))


def agents(db, q):
    linked, seen = {}, set()
    for (t,) in db.execute("SELECT DISTINCT type FROM events WHERE type LIKE 'in/agent/%'"):
        if noun(t):
            linked.setdefault(noun(t), set())
    for sid, t in db.execute("SELECT DISTINCT m.session_id, e.type FROM messages m LEFT JOIN events e ON e.id = m.event_id"):
        seen.add(sid)
        if noun(t):
            linked.setdefault(noun(t), set()).add(sid)
    any_linked = set().union(*linked.values()) if linked else set()
    return {"agents": [{"agent": a, "sessions": sorted(linked[a])} for a in sorted(linked)],
            "orphan_sessions": sorted(seen - any_linked)}


def sessions(db, q):
    sql = ("SELECT m.session_id AS session, MIN(m.created_at) AS first_ts, MAX(m.created_at) AS last_ts,"
           " COUNT(*) AS message_count, COUNT(DISTINCT m.event_id) AS event_count FROM messages m")
    args = []
    if q.get("agent"):
        sql += (" WHERE EXISTS (SELECT 1 FROM messages x JOIN events e ON e.id = x.event_id"
                " WHERE x.session_id = m.session_id AND (e.type = 'in/agent/' || ?1 OR e.type LIKE 'in/agent/' || ?1 || '/%'))")
        args.append(q["agent"])
    sql += " GROUP BY m.session_id ORDER BY last_ts DESC LIMIT 500"
    return {"sessions": [dict(r) for r in db.execute(sql, args)]}


def transcript(db, q):
    limit = clamp(q.get("limit"), PAGE_DEFAULT, PAGE_MAX)
    sql, args = "SELECT id, role, content, event_id, created_at FROM messages WHERE session_id = ?", [q["session"]]
    if q.get("before_id") is not None:
        sql += " AND id < ?"
        args.append(int(q["before_id"]))
    rows = list(db.execute(sql + " ORDER BY id DESC LIMIT ?", args + [limit + 1]))
    more, rows = len(rows) > limit, rows[:limit][::-1]
    return {"session": q["session"], "has_more": more,
            "messages": [{"id": r["id"], "role": r["role"], "content": stored(r["content"]),
                          "event_id": r["event_id"], "created_at": r["created_at"]} for r in rows]}


def conversation(db, q):
    rows = list(db.execute("SELECT id, type, cause_id, state, payload, created_at FROM events"
                           " WHERE correlation_id = ? ORDER BY id LIMIT ?", (q["correlation"], EVENTS_MAX + 1)))
    return {"correlation": q["correlation"], "truncated": len(rows) > EVENTS_MAX,
            "events": [{"id": r["id"], "type": r["type"], "cause_id": r["cause_id"], "state": r["state"],
                        "payload": stored(r["payload"]), "created_at": r["created_at"]} for r in rows[:EVENTS_MAX]]}


def search(db, q):
    f, sel, page = q.get("filter") or {}, q.get("select") or {}, q.get("page") or {}
    where, args = ["1=1"], []
    chans = f.get("channels") or []
    if chans:
        where.append("(" + " OR ".join("(e.type = ? OR e.type LIKE ? || '/%')" for _ in chans) + ")")
        for c in chans:
            args += [c, c]
    if f.get("involvement") == "agent":
        where.append("e.type LIKE 'in/agent/%'")
    if f.get("roles"):
        where.append("m.role IN (%s)" % ",".join("?" * len(f["roles"])))
        args += f["roles"]
    if f.get("text"):
        esc = f["text"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append("m.content LIKE '%' || ? || '%' ESCAPE '\\'")
        args.append(esc)
    if f.get("since"):
        where.append("m.created_at >= ?")
        args.append(f["since"])
    if f.get("until"):
        where.append("m.created_at < ?")
        args.append(f["until"])
    limit = clamp(page.get("limit"), PAGE_DEFAULT, PAGE_MAX)
    if page.get("cursor"):
        where.append("m.id < ?")
        args.append(int(page["cursor"]))
    rows = list(db.execute(
        "SELECT m.id, m.session_id, m.role, m.content, m.event_id, m.created_at, e.type AS event_type"
        " FROM messages m LEFT JOIN events e ON e.id = m.event_id WHERE " + " AND ".join(where) +
        " ORDER BY m.id DESC LIMIT ?", args + [limit + 1]))
    more, rows = len(rows) > limit, rows[:limit]
    calls, results = sel.get("tool_calls", True), sel.get("tool_results", True)
    out = []
    for r in rows:
        c = stored(r["content"])
        if isinstance(c, dict):
            if r["role"] == "assistant" and not calls:
                c.pop("tool_calls", None)
            if sel.get("reasoning", True) is False:
                c.pop("reasoning", None)
            if r["role"] == "tool":
                if results is False:
                    continue
                if isinstance(results, dict) and isinstance(results.get("truncate"), int):
                    n = max(0, results["truncate"])
                    if isinstance(c.get("content"), str) and len(c["content"]) > n:
                        c["content"], c["truncated_to"] = c["content"][:n] + "\u2026", n
        out.append({"id": r["id"], "session": r["session_id"], "role": r["role"], "event_id": r["event_id"],
                    "event_type": r["event_type"], "created_at": r["created_at"], "content": c})
    return {"messages": out, "has_more": more, "cursor": rows[-1]["id"] if more and rows else None}


KINDS = {"agents": agents, "sessions": sessions, "transcript": transcript, "conversation": conversation, "search": search}


def answer(d):
    db = sqlite3.connect("file:%s/lanius.db?mode=ro" % d, uri=True)
    db.row_factory = sqlite3.Row
    with open(d + "/cases.jsonl") as cases, open(d + "/reference.jsonl", "w") as out:
        for line in cases:
            q = json.loads(line)
            try:
                a = KINDS[q["kind"]](db, q)
                a.update(ok=True, kind=q["kind"])
            except (KeyError, ValueError, TypeError) as e:
                a = {"ok": False, "error": str(e)}
            out.write(json.dumps(a) + "\n")


# Fields annals numbers its own way (docs/QUERYVIEW.md, differences): cursors always, message
# ids unless --ids is given.
SKIP = {"cursor"}
IDS = "--ids" in sys.argv


def subset(ref, got, path, diffs):
    """Reports where got differs from ref on ref's own fields."""
    if isinstance(ref, dict):
        if not isinstance(got, dict):
            diffs.append("%s: %r vs %r" % (path, str(ref)[:80], str(got)[:80]))
            return
        for k, v in ref.items():
            if k in SKIP or (k == "id" and ".messages[" in path + "." and not IDS):
                continue
            if k not in got:
                diffs.append("%s.%s missing" % (path, k))
            else:
                subset(v, got[k], path + "." + k, diffs)
    elif isinstance(ref, list):
        if not isinstance(got, list) or len(got) != len(ref):
            diffs.append("%s: %d items vs %s" % (path, len(ref), len(got) if isinstance(got, list) else type(got).__name__))
            return
        for i, (a, b) in enumerate(zip(ref, got)):
            subset(a, b, "%s[%d]" % (path, i), diffs)
    elif ref != got:
        diffs.append("%s: %r vs %r" % (path, str(ref)[:80], str(got)[:80]))


def compare(d, verbose):
    same = 0
    with open(d + "/cases.jsonl") as c, open(d + "/reference.jsonl") as r, open(d + "/annals.jsonl") as a:
        rows = list(zip(c, r, a))
    for q, ref, got in rows:
        diffs = []
        subset(json.loads(ref), json.loads(got), "", diffs)
        if diffs:
            print("DIFF %s\n     %s" % (q.strip()[:150], "\n     ".join(diffs[: 5 if verbose else 1])))
        else:
            same += 1
    print("%d of %d answers the same" % (same, len(rows)))


if __name__ == "__main__":
    {"answer": lambda: answer(sys.argv[2]), "compare": lambda: compare(sys.argv[2], "-v" in sys.argv)}[sys.argv[1]]()
