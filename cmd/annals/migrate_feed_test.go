package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A database that served feed reads without ever receiving replicated operations has its feed
// off after the upgrade (SQLite 0033, PostgreSQL 0027), and a --read-only server cannot switch
// it on: its feed read says so and names the command; `annals migrate --feed` switches it on,
// and the read-only server, still running, serves the feed — on both stores.
func TestReadOnlyServerFeedAfterMigrateFeed(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			tm := newTestMain(t)
			var db []string
			if backend == "postgres" {
				db = []string{"--db", mustPostgresSchema(t)}
			}
			var key struct {
				Secret string `json:"secret"`
			}
			if err := json.Unmarshal([]byte(tm.mustRun("", append([]string{"keys", "create", "--tenant", "local", "--role", "operator", "--json"}, db...)...)), &key); err != nil {
				t.Fatal(err)
			}
			tm.mustRun(twoChats, append([]string{"ingest"}, append(db, "-")...)...)
			s := startServe(t, tm, append([]string{"--read-only"}, db...)...)
			code, body := httpDo(t, "GET", s.url+"/v1/replicate/feed", key.Secret, "")
			if code != 403 || !strings.Contains(body, "annals migrate --feed") || !strings.Contains(body, "no change feed yet") {
				t.Fatalf("feed read on a read-only server whose feed is off: %d %s; want 403 naming 'annals migrate --feed'", code, body)
			}
			if out := tm.mustRun("", append([]string{"migrate", "--feed"}, db...)...); !strings.Contains(out, "it keeps its change feed") {
				t.Fatalf("migrate --feed printed %q", out)
			}
			code, body = httpDo(t, "GET", s.url+"/v1/replicate/feed", key.Secret, "")
			if code != 200 || !strings.Contains(body, `"c1"`) || !strings.Contains(body, `"c2"`) {
				t.Fatalf("feed read after migrate --feed: %d %s; want both chats", code, body)
			}
			var rep migrateReport
			if err := json.Unmarshal([]byte(tm.mustRun("", append([]string{"migrate", "--feed", "--json"}, db...)...)), &rep); err != nil || !rep.Feed {
				t.Fatalf("a second migrate --feed --json: %+v, %v", rep, err)
			}
		})
	}
}
