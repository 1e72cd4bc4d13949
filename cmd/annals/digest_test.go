package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals/history"
)

// digestChats are three chats: one without a title, quiet since 2025; one a person named; and
// one active within the last hour (its entries are stamped at the time the test runs).
func digestChats(recent time.Time) string {
	r := recent.UTC().Format(time.RFC3339)
	return `{"type":"chat","id":"quiet","created_at":"2025-04-01T00:00:00Z"}
{"type":"entry","chat_id":"quiet","id":"e1","kind":"user","text":"Fix the flaky login test in CI. It fails one run in ten.","time":"2025-04-01T00:00:01Z"}
{"type":"entry","chat_id":"quiet","id":"e2","kind":"assistant","text":"The root cause is a shared clock; I'll use a fake clock.","time":"2025-04-01T00:00:02Z"}
{"type":"chat","id":"named","title":"Dana's deploy notes","created_at":"2025-04-01T00:00:00Z"}
{"type":"entry","chat_id":"named","id":"e1","kind":"user","text":"Deploy the shop to staging.","time":"2025-04-01T00:00:01Z"}
{"type":"chat","id":"fresh","created_at":"` + r + `"}
{"type":"entry","chat_id":"fresh","id":"e1","kind":"user","text":"Rotate the expired certificate.","time":"` + r + `"}
`
}

type digestedChat struct {
	Title          string `json:"title"`
	TitleGenerated bool   `json:"title_generated"`
	Summary        string `json:"summary"`
}

func showChat(t *testing.T, tm *testMain, id string) digestedChat {
	t.Helper()
	var got struct {
		Chat digestedChat `json:"chat"`
	}
	out := tm.mustRun("", "show", id, "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("show %s --json: %v\n%s", id, err, out)
	}
	return got.Chat
}

func writeConfig(t *testing.T, tm *testMain, text string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = path
}

// TestDigestOnceDigestsTheDueChats: the quiet chat gets a summary and a generated title, the
// named one a summary under its own title, the fresh one (active in the last hour, idle 2h)
// nothing; a second run finds nothing due.
func TestDigestOnceDigestsTheDueChats(t *testing.T) {
	tm := newTestMain(t)
	writeConfig(t, tm, "digest:\n  idle: 2h\n")
	tm.mustRun(digestChats(time.Now().Add(-time.Minute)), "ingest", "-")
	var p history.DigestProgress
	if err := json.Unmarshal([]byte(tm.mustRun("", "digest", "--once", "--json")), &p); err != nil {
		t.Fatal(err)
	}
	if p.Digested != 2 || p.Titled != 1 || p.Failed != 0 || p.Checked != 3 {
		t.Fatalf("digest --once = %+v; want quiet and named digested, one title, three checked", p)
	}
	if c := showChat(t, tm, "quiet"); c.Title != "Fix the flaky login test in CI." || !c.TitleGenerated || !strings.Contains(c.Summary, "flaky login test") {
		t.Errorf("quiet = %+v", c)
	}
	if c := showChat(t, tm, "named"); c.Title != "Dana's deploy notes" || c.TitleGenerated || c.Summary == "" {
		t.Errorf("named = %+v; want its own title and a summary", c)
	}
	if c := showChat(t, tm, "fresh"); c.Summary != "" || c.Title != "" {
		t.Errorf("fresh = %+v; want it left until it is idle", c)
	}
	if out := tm.mustRun("", "digest", "--once"); !strings.HasPrefix(out, "digested 0 chats (0 titled), 0 failed") {
		t.Errorf("second run: %q", out)
	}
}

// TestDigestSinceRefreshesTheRecentChats: --since 24h digests the chat active in the last hour
// and leaves the chats of 2025.
func TestDigestSinceRefreshesTheRecentChats(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(digestChats(time.Now().Add(-time.Hour)), "ingest", "-")
	out := tm.mustRun("", "digest", "--since", "24h")
	if !strings.HasPrefix(out, "digested 1 chat (1 titled), 0 failed") {
		t.Fatalf("digest --since 24h: %q", out)
	}
	if c := showChat(t, tm, "fresh"); c.Title != "Rotate the expired certificate." || c.Summary == "" {
		t.Errorf("fresh = %+v", c)
	}
	if c := showChat(t, tm, "quiet"); c.Summary != "" {
		t.Errorf("a chat of 2025 was refreshed by --since 24h: %+v", c)
	}
}

func TestDigestRefusesBadFlagsAndConfig(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(digestChats(time.Now()), "ingest", "-")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"digest"}, "digest needs one of --once"},
		{[]string{"digest", "--once", "--since", "1h"}, "digest needs one of --once"},
		{[]string{"digest", "--since", "yesterday"}, `--since "yesterday" is neither a duration`},
		{[]string{"digest", "--since", "-1h"}, "must be a positive duration"},
	} {
		if _, _, err := tm.run("", tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want %q", tc.args, err, tc.want)
		}
	}
	for _, tc := range []struct{ config, want string }{
		{"digest:\n  schedule: '0 25 * * *'\n", `digest.schedule: the hour field "25": 25 is out of range (allowed: 0-23`},
		{"digest:\n  schedule: '0 4 * *'\n", "digest.schedule: \"0 4 * *\" has 4 fields; want 5"},
		{"digest:\n  idle: soon\n", `digest.idle "soon" is not a duration`},
		{"digest:\n  min_new_entries: -3\n", "digest.min_new_entries -3 is out of range"},
		{"digest:\n  every_so_often: 1m\n", "every_so_often"},
	} {
		writeConfig(t, tm, tc.config)
		if _, _, err := tm.run("", "digest", "--once"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %q: %v; want %q", tc.config, err, tc.want)
		}
	}
}

// TestServeDigestsAnIdleChat: with digest.enabled, the worker of a real annals serve digests
// the quiet chat and titles it; the chat a person named keeps its title.
func TestServeDigestsAnIdleChat(t *testing.T) {
	tm := newTestMain(t)
	writeConfig(t, tm, "digest:\n  enabled: true\n  idle: 1s\n  every: 50ms\n")
	tm.mustRun(digestChats(time.Now().Add(time.Hour)), "ingest", "-")
	s := startServe(t, tm)
	deadline := time.Now().Add(60 * time.Second)
	for showChat(t, tm, "named").Summary == "" || showChat(t, tm, "quiet").Summary == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no digest after a minute; server log:\n%s", s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := showChat(t, tm, "quiet"); c.Title != "Fix the flaky login test in CI." || !c.TitleGenerated {
		t.Errorf("quiet = %+v", c)
	}
	if c := showChat(t, tm, "named"); c.Title != "Dana's deploy notes" || c.TitleGenerated {
		t.Errorf("named = %+v", c)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.stderr.String(), `msg="digested chats" digested=2 titled=1`) {
		t.Errorf("the log does not report the digests:\n%s", s.stderr.String())
	}
}

// TestServeDigestsByDefault: with no digest: block at all, annals serve digests the chat quiet
// for more than the default 10 minutes with the offline summarizer and titles it; the chat a
// person named keeps its title, the fresh one is left alone.
func TestServeDigestsByDefault(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(digestChats(time.Now().Add(time.Hour)), "ingest", "-")
	s := startServe(t, tm)
	deadline := time.Now().Add(60 * time.Second)
	for showChat(t, tm, "named").Summary == "" || showChat(t, tm, "quiet").Summary == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no digest after a minute; server log:\n%s", s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if c := showChat(t, tm, "quiet"); c.Title != "Fix the flaky login test in CI." || !c.TitleGenerated {
		t.Errorf("quiet = %+v", c)
	}
	if c := showChat(t, tm, "named"); c.Title != "Dana's deploy notes" || c.TitleGenerated {
		t.Errorf("named = %+v", c)
	}
	if c := showChat(t, tm, "fresh"); c.Summary != "" {
		t.Errorf("fresh, active within the idle time, was digested: %+v", c)
	}
	if !strings.Contains(s.stderr.String(), `msg="digest worker started" due_chats=true every=1m0s idle=10m0s min_new_entries=8 stale=12h0m0s`) {
		t.Errorf("the log does not show the worker on with the defaults:\n%s", s.stderr.String())
	}
}

// TestServeDigestTurnsOff: --no-digest, digest.enabled: false, and summarizer provider none
// (by default) each keep the worker off; digest.enabled: true with no summarizer is refused.
func TestServeDigestTurnsOff(t *testing.T) {
	for _, tc := range []struct{ name, config, flag string }{
		{"flag", "", "--no-digest"},
		{"config", "digest:\n  enabled: false\n", ""},
		{"no summarizer", "summarizer:\n  provider: none\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := newTestMain(t)
			if tc.config != "" {
				writeConfig(t, tm, tc.config)
			}
			var args []string
			if tc.flag != "" {
				args = append(args, tc.flag)
			}
			s := startServe(t, tm, args...)
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(s.stderr.String(), "digest worker") {
				t.Errorf("the digest worker ran:\n%s", s.stderr.String())
			}
		})
	}
	tm := newTestMain(t)
	writeConfig(t, tm, "summarizer:\n  provider: none\ndigest:\n  enabled: true\n")
	if _, _, err := tm.run("", "serve", "--addr", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), "need a summarizer") {
		t.Errorf("serve with digest.enabled and no summarizer: %v; want it refused", err)
	}
}
