package main

// goldenQueryView covers every kind of POST /query and its errors.
func goldenQueryView(gs *goldenServer) {
	for _, c := range []struct{ key, body string }{
		{"member", `{"kind":"agents"}`},
		{"member", `{"kind":"sessions"}`},
		{"agent", `{"kind":"sessions"}`},
		{"stranger", `{"kind":"sessions"}`},
		{"member", `{"kind":"sessions","scope":"global"}`},
		{"admin", `{"kind":"sessions","scope":"global"}`},
		{"member", `{"kind":"transcript","session_id":"acme-deploy"}`},
		{"member", `{"kind":"transcript","session_id":"other-deploy"}`},
		{"member", `{"kind":"conversation","session_id":"acme-deploy"}`},
		{"member", `{"kind":"search","filter":{"text":"deploy"}}`},
		{"member", `{"kind":"search","filter":{"text":"permission","roles":["tool"]},"select":{"tool_results":true}}`},
		{"member", `{"kind":"nope"}`},
		{"member", `{"kind":"agents","annals":{"strict":true},"bogus":1}`},
		{"member", `{`},
	} {
		gs.do(c.key, "POST", "/query", c.body)
	}
}

// goldenCapture covers the capture routes and their refusals.
func goldenCapture(gs *goldenServer) {
	for _, c := range []struct{ key, path, body string }{
		{"member", "/v1/sessions", `{"id":"cap-1","title":"Captured over HTTP","created_at":"2025-04-01T00:00:00Z"}`},
		{"member", "/v1/sessions", `{"id":"cap-1","title":"Captured over HTTP","created_at":"2025-04-01T00:00:00Z"}`},
		{"member", "/v1/sessions", `{"id":"cap-1","title":"Other title","created_at":"2025-04-02T00:00:00Z"}`},
		{"member", "/v1/sessions", `{"id":"cap-2","user_id":"bob","created_at":"2025-04-01T00:00:00Z"}`},
		{"member", "/v1/sessions/cap-1/entries", "{\"id\":\"m1\",\"kind\":\"user\",\"text\":\"why is CI red? token sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\",\"time\":\"2025-04-01T00:00:01Z\"}\n{\"id\":\"m2\",\"kind\":\"assistant\",\"text\":\"a flaky test\",\"time\":\"2025-04-01T00:00:02Z\"}\n"},
		{"member", "/v1/sessions/cap-1/entries", `{"entries":[{"id":"m3","kind":"assistant","text":"retry it","time":"2025-04-01T00:00:03Z"}]}`},
		{"member", "/v1/sessions/cap-1/entries", `{"entries":[{"id":"m4","kind":"robot","time":"2025-04-01T00:00:03Z"}]}`},
		{"member", "/v1/sessions/other-deploy/entries", `{"entries":[{"id":"x","kind":"user","text":"x","time":"2025-04-01T00:00:03Z"}]}`},
		{"member", "/v1/sessions/acme-review/entries", `{"entries":[{"id":"x","kind":"user","text":"x","time":"2025-04-01T00:00:03Z"}]}`},
		{"member", "/v1/runs", `{"chat_id":"cap-1","id":"cap-1/r1","status":"completed","input_tokens":812,"started_at":"2025-04-01T00:00:00Z","ended_at":"2025-04-01T00:00:05Z"}`},
		{"member", "/v1/sessions/cap-1/truncate", `{"entry_id":"m3"}`},
		{"member", "/v1/sessions/cap-1/truncate", `{}`},
		{"member", "/v1/capture", `[{"chat":{"id":"cap-3","created_at":"2025-04-01T00:00:00Z"}},{"append":{"chat_id":"cap-3","entries":[{"id":"a","kind":"user","text":"batched","time":"2025-04-01T00:00:01Z"}]}}]`},
		{"member", "/v1/capture", `[{"chat":{"id":"cap-4","created_at":"2025-04-01T00:00:00Z"}},{"append":{"chat_id":"other-deploy","entries":[{"id":"a","kind":"user","text":"x","time":"2025-04-01T00:00:01Z"}]}}]`},
		{"member", "/v1/ingest", "{\"type\":\"chat\",\"id\":\"ing-1\",\"tenant_id\":\"acme\",\"user_id\":\"alice\",\"created_at\":\"2025-04-01T00:00:00Z\"}\n{\"type\":\"entry\",\"chat_id\":\"ing-1\",\"id\":\"e1\",\"kind\":\"user\",\"text\":\"ingested\",\"time\":\"2025-04-01T00:00:01Z\"}\n"},
		{"member", "/v1/ingest", "{\"type\":\"chat\",\"id\":\"ing-2\"}\n{\"type\":\"bogus\"}\n"},
		{"operator", "/v1/sessions", `{"id":"cap-op","user_id":"carol","created_at":"2025-04-01T00:00:00Z"}`},
		{"stranger", "/v1/sessions/cap-1/entries", `{"entries":[{"id":"x","kind":"user","text":"x","time":"2025-04-01T00:00:03Z"}]}`},
		{"", "/v1/sessions", `{"id":"anon"}`},
	} {
		gs.do(c.key, "POST", c.path, c.body)
	}
	gs.do("member", "POST", "/v1/history", `{"op":"get","session_id":"cap-1"}`)
}

// goldenExports covers exports and runs.
func goldenExports(gs *goldenServer) {
	for _, c := range []struct{ key, path string }{
		{"member", "/v1/sessions/acme-deploy/export"},
		{"member", "/v1/sessions/acme-deploy/export?format=json"},
		{"member", "/v1/sessions/acme-deploy/export?format=pdf"},
		{"member", "/v1/sessions/acme-deploy/export?bogus=1"},
		{"member", "/v1/sessions/other-deploy/export"},
		{"admin", "/v1/sessions/other-deploy/export?scope=global"},
		{"member", "/v1/sessions/acme-deploy/runs"},
		{"member", "/v1/sessions/missing/runs"},
	} {
		gs.do(c.key, "GET", c.path, "")
	}
}
