#!/usr/bin/env python3
"""Records the reference lanius history view's answers to request variations the shared cases
(../shared/interop/lanius/golden) do not cover: other cursors and before_ids, limits at the
edges and in other types, since/until forms, channel, agent and role filters, projections,
falsy and odd values, errors, and the wire (no Content-Length, other paths).

Usage: lanius_variations.py URL OUT
  URL  the reference's history view serving gen.py's database (its documented parameters)
  OUT  the file to write: {"cases": [<case in the golden format>, ...]}

Each case is a list of requests; a body may name $CURSOR or $FIRST_ID, the previous answer's
cursor or first message id, as a client walking pages passes them. TestLaniusVariations
replays the file against annals exactly as TestLaniusGoldenAnswers replays the shared cases.
"""
import http.client
import json
import sys
import urllib.parse

S = "s-982613bf"          # a regular 100-message session of main
CORR = "0013837691a97f7dac03aac22c587069"
CASES = [
    # ---- wire
    ("get_query_is_404", [("GET", "/query", None, True)]),
    ("get_unknown_path_is_404", [("GET", "/nope", None, True)]),
    ("no_content_length", [("POST", "/query", '{"kind": "agents"}', False)]),
    ("broken_json", [("POST", "/query", '{"kind": "agents"', True)]),
    ("empty_body", [("POST", "/query", "", True)]),
    ("missing_kind", [("POST", "/query", '{}', True)]),
    ("kind_number", [("POST", "/query", '{"kind": 5}', True)]),
    ("kind_null", [("POST", "/query", '{"kind": null}', True)]),
    ("kind_upper", [("POST", "/query", '{"kind": "AGENTS"}', True)]),
    # ---- agents
    ("agents", [("POST", "/query", '{"kind": "agents"}', True)]),
    ("agents_probe_limit_string", [("POST", "/query", '{"kind": "agents", "limit": "1"}', True)]),
    ("agents_limit_garbage", [("POST", "/query", '{"kind": "agents", "limit": "x", "agent": 5}', True)]),
    # ---- sessions
    ("sessions_agent_main", [("POST", "/query", '{"kind": "sessions", "agent": "main"}', True)]),
    ("sessions_agent_upper", [("POST", "/query", '{"kind": "sessions", "agent": "MAIN"}', True)]),
    ("sessions_agent_unknown", [("POST", "/query", '{"kind": "sessions", "agent": "nobody"}', True)]),
    ("sessions_agent_empty", [("POST", "/query", '{"kind": "sessions", "agent": ""}', True)]),
    ("sessions_agent_sub", [("POST", "/query", '{"kind": "sessions", "agent": "main/dm"}', True)]),
    ("sessions_agent_architect", [("POST", "/query", '{"kind": "sessions", "agent": "architect"}', True)]),
    ("sessions_limit_ignored", [("POST", "/query", '{"kind": "sessions", "agent": "scout", "limit": 5}', True)]),
    # ---- transcript
    ("transcript_before_id_zero", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": 0}' % S, True)]),
    ("transcript_before_id_false", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": false}' % S, True)]),
    ("transcript_before_id_null", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": null, "limit": 3}' % S, True)]),
    ("transcript_before_id_empty_string", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": ""}' % S, True)]),
    ("transcript_before_id_string", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 3}' % S, True),
                                     ("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 3, "before_id": "$FIRST_ID_STR"}' % S, True)]),
    ("transcript_before_id_float", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 3, "before_id": 95750.9}' % S, True)]),
    ("transcript_before_id_float_string", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 3, "before_id": "95750.5"}' % S, True)]),
    ("transcript_before_id_negative", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": -3}' % S, True)]),
    ("transcript_before_id_huge", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 2, "before_id": 99999999}' % S, True)]),
    ("transcript_before_id_below_session", [("POST", "/query", '{"kind": "transcript", "session": "%s", "before_id": 5}' % S, True)]),
    ("transcript_before_id_between", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 4, "before_id": 95760}' % S, True)]),
    ("transcript_walk_limit_30", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 30}' % S, True),
                                  ("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 30, "before_id": $FIRST_ID}' % S, True),
                                  ("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 30, "before_id": $FIRST_ID}' % S, True),
                                  ("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 30, "before_id": $FIRST_ID}' % S, True)]),
    ("transcript_limit_string", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": "4"}' % S, True)]),
    ("transcript_limit_zero_string", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": "0"}' % S, True)]),
    ("transcript_limit_zero", [("POST", "/query", '{"kind": "transcript", "session": "s-2d8ced4a", "limit": 0}', True)]),
    ("transcript_limit_float", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": 3.9}' % S, True)]),
    ("transcript_limit_true", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": true}' % S, True)]),
    ("transcript_limit_garbage", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": "many"}' % S, True)]),
    ("transcript_limit_string_spaces", [("POST", "/query", '{"kind": "transcript", "session": "%s", "limit": " 2 "}' % S, True)]),
    ("transcript_unknown_session", [("POST", "/query", '{"kind": "transcript", "session": "s-00000000"}', True)]),
    ("transcript_empty_session", [("POST", "/query", '{"kind": "transcript", "session": ""}', True)]),
    ("transcript_exactly_80", [("POST", "/query", '{"kind": "transcript", "session": "s-2d8ced4a"}', True)]),
    ("transcript_exactly_201", [("POST", "/query", '{"kind": "transcript", "session": "s-1ddba6cf", "limit": 200}', True),
                                ("POST", "/query", '{"kind": "transcript", "session": "s-1ddba6cf", "limit": 200, "before_id": $FIRST_ID}', True)]),
    ("transcript_raw_content", [("POST", "/query", '{"kind": "transcript", "session": "s-b588c2ec"}', True)]),
    ("transcript_upper_type", [("POST", "/query", '{"kind": "transcript", "session": "s-02a5d482"}', True)]),
    ("transcript_orphan_then_agent", [("POST", "/query", '{"kind": "transcript", "session": "s-18e9db40"}', True)]),
    ("transcript_near_miss", [("POST", "/query", '{"kind": "transcript", "session": "s-150963ba"}', True)]),
    ("transcript_unknown_fields", [("POST", "/query", '{"kind": "transcript", "session": "s-9665c13f", "cursor": "x", "filter": {"roles": ["tool"]}}', True)]),
    # ---- conversation
    ("conversation_typical", [("POST", "/query", '{"kind": "conversation", "correlation": "%s"}' % CORR, True)]),
    ("conversation_exactly_500", [("POST", "/query", '{"kind": "conversation", "correlation": "corr-exactly-500-53946e6e"}', True)]),
    ("conversation_raw_payload", [("POST", "/query", '{"kind": "conversation", "correlation": "corr-rawpayload-6bc6dfdd"}', True)]),
    ("conversation_missing", [("POST", "/query", '{"kind": "conversation"}', True)]),
    ("conversation_empty", [("POST", "/query", '{"kind": "conversation", "correlation": ""}', True)]),
    ("conversation_limit_ignored", [("POST", "/query", '{"kind": "conversation", "correlation": "loop-1061647317ca", "limit": 3}', True)]),
    # ---- search: cursors
    ("search_cursor_walk_numeric", [("POST", "/query", '{"kind": "search", "page": {"limit": 5}}', True),
                                    ("POST", "/query", '{"kind": "search", "page": {"limit": 5, "cursor": $CURSOR}}', True),
                                    ("POST", "/query", '{"kind": "search", "page": {"limit": 5, "cursor": "$CURSOR"}}', True)]),
    ("search_cursor_float", [("POST", "/query", '{"kind": "search", "page": {"limit": 3, "cursor": 100400.7}}', True)]),
    ("search_cursor_negative", [("POST", "/query", '{"kind": "search", "page": {"limit": 3, "cursor": -5}}', True)]),
    ("search_cursor_true", [("POST", "/query", '{"kind": "search", "page": {"limit": 3, "cursor": true}}', True)]),
    ("search_cursor_garbage", [("POST", "/query", '{"kind": "search", "page": {"limit": 3, "cursor": "abc"}}', True)]),
    ("search_cursor_null_empty", [("POST", "/query", '{"kind": "search", "page": {"limit": 2, "cursor": null}}', True),
                                  ("POST", "/query", '{"kind": "search", "page": {"limit": 2, "cursor": ""}}', True)]),
    ("search_cursor_one", [("POST", "/query", '{"kind": "search", "page": {"limit": 3, "cursor": 2}}', True)]),
    # ---- search: limits
    ("search_limit_strings", [("POST", "/query", '{"kind": "search", "page": {"limit": "3"}}', True),
                              ("POST", "/query", '{"kind": "search", "page": {"limit": "0"}}', True),
                              ("POST", "/query", '{"kind": "search", "page": {"limit": 2.9}}', True),
                              ("POST", "/query", '{"kind": "search", "page": {"limit": "x"}}', True)]),
    ("search_limit_201", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["user"]}, "page": {"limit": 201}}', True)]),
    ("search_limit_exact_end", [("POST", "/query", '{"kind": "search", "filter": {"text": "KESTREL"}, "page": {"limit": 45}}', True),
                                ("POST", "/query", '{"kind": "search", "filter": {"text": "KESTREL"}, "page": {"limit": 44}}', True)]),
    # ---- search: filters
    ("search_channels_trailing_slash", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["in/agent/main/"]}, "page": {"limit": 5}}', True)]),
    ("search_channels_empty_string", [("POST", "/query", '{"kind": "search", "filter": {"channels": [""]}, "page": {"limit": 5}}', True)]),
    ("search_channels_empty_list", [("POST", "/query", '{"kind": "search", "filter": {"channels": []}, "page": {"limit": 3}}', True)]),
    ("search_channels_too_many", [("POST", "/query", '{"kind": "search", "filter": {"channels": [%s]}}' % ", ".join('"in/agent/a%d"' % i for i in range(21)), True)]),
    ("search_channels_twenty", [("POST", "/query", '{"kind": "search", "filter": {"channels": [%s, "in/agent/scout"]}, "page": {"limit": 3}}' % ", ".join('"in/agent/a%d"' % i for i in range(19)), True)]),
    ("search_channels_sub", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["in/agent/main/dm"]}, "page": {"limit": 5}}', True)]),
    ("search_channels_two", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["in/agent/scout", "in/human/owner"]}, "page": {"limit": 10}}', True)]),
    ("search_channels_human", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["in/human"]}, "page": {"limit": 5}}', True)]),
    ("search_channels_exact_upper", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["IN/AGENT/MAIN/shout"]}, "page": {"limit": 5}}', True)]),
    ("search_involvement_agent", [("POST", "/query", '{"kind": "search", "filter": {"involvement": "agent"}, "page": {"limit": 10}}', True)]),
    ("search_involvement_agent_upper", [("POST", "/query", '{"kind": "search", "filter": {"involvement": "agent", "text": "shouting"}}', True)]),
    ("search_involvement_other", [("POST", "/query", '{"kind": "search", "filter": {"involvement": "bogus"}, "page": {"limit": 3}}', True)]),
    ("search_involvement_all_orphans", [("POST", "/query", '{"kind": "search", "filter": {"involvement": "all", "text": "local run first"}}', True)]),
    ("search_roles_two", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["user", "assistant"]}, "page": {"limit": 10}}', True)]),
    ("search_roles_empty", [("POST", "/query", '{"kind": "search", "filter": {"roles": []}, "page": {"limit": 3}}', True)]),
    ("search_roles_string", [("POST", "/query", '{"kind": "search", "filter": {"roles": "user"}}', True)]),
    ("search_roles_upper", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["USER"]}}', True)]),
    ("search_text_percent", [("POST", "/query", '{"kind": "search", "filter": {"text": "100%"}, "page": {"limit": 10}}', True)]),
    ("search_text_backslash", [("POST", "/query", '{"kind": "search", "filter": {"text": "C:\\\\Users\\\\shrike"}, "page": {"limit": 10}}', True)]),
    ("search_text_phrase_roles", [("POST", "/query", '{"kind": "search", "filter": {"text": "reactor pressure", "roles": ["user"]}, "page": {"limit": 10}}', True)]),
    ("search_text_nowhere", [("POST", "/query", '{"kind": "search", "filter": {"text": "zz-no-such"}}', True)]),
    ("search_text_empty", [("POST", "/query", '{"kind": "search", "filter": {"text": ""}, "page": {"limit": 2}}', True)]),
    ("search_text_thornbush", [("POST", "/query", '{"kind": "search", "filter": {"text": "thornbush", "roles": ["assistant"]}, "page": {"limit": 10}}', True)]),
    ("search_text_quote", [("POST", "/query", '{"kind": "search", "filter": {"text": "\\"quoted\\""}}', True)]),
    ("search_since_until_ms", [("POST", "/query", '{"kind": "search", "filter": {"since": "2026-06-01T00:00:00.000Z", "until": "2026-06-01T00:00:00.001Z"}}', True)]),
    ("search_until_date_only", [("POST", "/query", '{"kind": "search", "filter": {"until": "2026-05-15", "roles": ["user"]}, "page": {"limit": 5}}', True),
                                ("POST", "/query", '{"kind": "search", "filter": {"until": "2026-05-16"}, "page": {"limit": 5}}', True)]),
    ("search_since_after_until", [("POST", "/query", '{"kind": "search", "filter": {"since": "2026-06-02", "until": "2026-06-01"}}', True)]),
    ("search_since_garbage", [("POST", "/query", '{"kind": "search", "filter": {"since": "yesterday"}, "page": {"limit": 3}}', True),
                              ("POST", "/query", '{"kind": "search", "filter": {"until": "yesterday"}, "page": {"limit": 3}}', True)]),
    ("search_since_offset", [("POST", "/query", '{"kind": "search", "filter": {"since": "2026-06-01T00:00:00+02:00", "until": "2026-06-01T00:02:00+00:00"}, "page": {"limit": 20}}', True)]),
    ("search_since_month", [("POST", "/query", '{"kind": "search", "filter": {"until": "2026-05-16T00", "since": "2026-05"}, "page": {"limit": 5}}', True)]),
    ("search_since_space", [("POST", "/query", '{"kind": "search", "filter": {"since": "2026-06-13 12:00:00"}, "page": {"limit": 5}}', True)]),
    # ---- search: projections
    ("search_select_no_tool_calls", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["assistant"]}, "select": {"tool_calls": false}, "page": {"limit": 5}}', True)]),
    ("search_select_tool_calls_falsy", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["assistant"]}, "select": {"tool_calls": 0, "reasoning": null}, "page": {"limit": 5}}', True)]),
    ("search_select_tool_calls_null", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["assistant"]}, "select": {"tool_calls": null}, "page": {"limit": 5}}', True)]),
    ("search_select_truthy_strings", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["assistant"]}, "select": {"tool_calls": "no", "reasoning": "false"}, "page": {"limit": 5}}', True)]),
    ("search_select_tool_results_true", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": true}, "page": {"limit": 3}}', True)]),
    ("search_select_truncate_zero", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": {"truncate": 0}}, "page": {"limit": 3}}', True)]),
    ("search_select_truncate_negative", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": {"truncate": -5}}, "page": {"limit": 3}}', True)]),
    ("search_select_truncate_false", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": {"truncate": false}}, "page": {"limit": 3}}', True)]),
    ("search_select_truncate_huge", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": {"truncate": 100000}}, "page": {"limit": 3}}', True)]),
    ("search_select_truncate_short", [("POST", "/query", '{"kind": "search", "filter": {"text": "short result"}, "select": {"tool_results": {"truncate": 12}}}', True),
                                      ("POST", "/query", '{"kind": "search", "filter": {"text": "short result"}, "select": {"tool_results": {"truncate": 11}}}', True)]),
    ("search_select_truncate_capped", [("POST", "/query", '{"kind": "search", "filter": {"text": "probe 16385"}, "select": {"tool_results": {"truncate": 5}}}', True)]),
    ("search_select_tool_results_odd", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": "no"}, "page": {"limit": 2}}', True),
                                        ("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": 0}, "page": {"limit": 2}}', True),
                                        ("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": null}, "page": {"limit": 2}}', True),
                                        ("POST", "/query", '{"kind": "search", "filter": {"roles": ["tool"]}, "select": {"tool_results": {}}, "page": {"limit": 2}}', True)]),
    ("search_select_tool_results_false_page", [("POST", "/query", '{"kind": "search", "select": {"tool_results": false}, "page": {"limit": 20}}', True)]),
    ("search_select_content_edges", [("POST", "/query", '{"kind": "search", "filter": {"channels": ["in/agent/main/dm/owner"], "text": "probe"}, "select": {"tool_results": {"truncate": 3}, "reasoning": false}}', True)]),
    # ---- search: odd shapes and unknown fields
    ("search_falsy_objects", [("POST", "/query", '{"kind": "search", "filter": [], "select": "", "page": 0}', True),
                              ("POST", "/query", '{"kind": "search", "filter": null, "select": null, "page": null}', True)]),
    ("search_unknown_fields", [("POST", "/query", '{"kind": "search", "filter": {"roles": ["user"], "channel": "x", "TEXT": "y"}, "select": {"everything": 1}, "page": {"limit": 2, "offset": 7}, "session": "s-982613bf"}', True)]),
    ("search_text_number", [("POST", "/query", '{"kind": "search", "filter": {"text": 100}, "page": {"limit": 3}}', True)]),
]


def req(base, method, path, body, with_length):
    u = urllib.parse.urlparse(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    data = body.encode() if body is not None else None
    if body is None:
        c.request(method, path)
    elif with_length:
        c.request(method, path, body=data, headers={"Content-Type": "application/json"})
    else:
        c.putrequest(method, path)
        c.putheader("Content-Type", "application/json")
        c.putheader("Transfer-Encoding", "chunked")
        c.endheaders()
        c.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
    try:
        r = c.getresponse()
        raw = r.read()
        return r.status, json.loads(raw)
    except (http.client.HTTPException, ConnectionError):
        return None, None


def main():
    base, out = sys.argv[1], sys.argv[2]
    cases = []
    for name, steps in CASES:
        exchanges, prev = [], None
        for method, path, body, with_length in steps:
            if body is not None and prev:
                msgs = prev.get("messages") or []
                first = msgs[0]["id"] if msgs else None
                body = body.replace("$FIRST_ID_STR", str(first)).replace("$FIRST_ID", json.dumps(first))
                body = body.replace("$CURSOR", str(prev.get("cursor")))
            status, answer = req(base, method, path, body, with_length)
            exchanges.append({"request": {"method": method, "path": path, "body_raw": body, "content_length": with_length},
                              "response": {"status": status, "body": answer}})
            prev = answer if isinstance(answer, dict) else None
        cases.append({"case": name, "exchanges": exchanges})
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"recorded_from": "the reference lanius history view (kits/stdlib/packages/history, HEAD 942c007) on gen.py's database",
                   "cases": cases}, f, ensure_ascii=False, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
