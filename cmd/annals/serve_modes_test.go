package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestClientModeGivesTheSameOutputAsLocal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	s := startServe(t, tm)
	for _, args := range [][]string{
		{"list"}, {"list", "--json"}, {"list", "--tag", "ops"},
		{"search", "deploy"}, {"search", "permission"},
		{"show", "c1"}, {"show", "--json", "c1"}, {"show", "--around", "2", "--context", "1", "c1"},
		{"export", "c1"}, {"export", "--format", "json", "c1"},
		{"related", "--query", "deploy shop"},
	} {
		local := tm.mustRun("", args...)
		remote := tm.mustRun("", append([]string{"--server", s.url}, args...)...)
		if local != remote {
			t.Errorf("annals %s differs through --server:\nlocal:\n%s\nremote:\n%s", strings.Join(args, " "), local, remote)
		}
	}
	// Writes through the server print what they print locally, and change the same database.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rename", "c2", "Renamed", "remotely"}, "renamed c2  Renamed remotely\n"},
		{[]string{"tag", "c2", "remote"}, "c2 tags: remote\n"},
		{[]string{"pin", "c2"}, "pinned c2  Renamed remotely\n"},
		{[]string{"archive", "--restore", "c2"}, ""},
	} {
		out := tm.mustRun("", append([]string{"--server=" + s.url}, c.args...)...)
		if c.want != "" && out != c.want {
			t.Errorf("%v printed %q, want %q", c.args, out, c.want)
		}
	}
	tm.env["ANNALS_SERVER"] = s.url
	defer delete(tm.env, "ANNALS_SERVER")
	out := tm.mustRun(`{"type":"chat","id":"c3","title":"Ingested through the server"}`+"\n", "ingest", "-")
	if !strings.Contains(out, "chats created  1") && !strings.Contains(strings.Join(strings.Fields(out), " "), "chats created 1") {
		t.Errorf("remote ingest:\n%s", out)
	}
	if out := tm.mustRun("", "recap", "c1"); !strings.Contains(out, "**Goal:** deploy it please") {
		t.Errorf("remote recap:\n%s", out)
	}
	if out := tm.mustRun("", "delete", "--yes", "c3"); !strings.Contains(out, "c3") {
		t.Errorf("remote delete:\n%s", out)
	}
	delete(tm.env, "ANNALS_SERVER")
	if out := tm.mustRun("", "list"); !strings.Contains(out, "* Renamed remotely") || strings.Contains(out, "c3") {
		t.Errorf("local list after remote writes:\n%s", out)
	}
	// What needs the database itself says so.
	for _, args := range [][]string{{"redact", "--rescan"}} {
		_, _, err := tm.run("", append([]string{"--server", s.url}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "needs a local database") {
			t.Errorf("%v through --server: %v", args, err)
		}
	}
	_, _, err := tm.run("", "--server", s.url, "list", "--db", "/tmp/x.db")
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("--db with --server: %v", err)
	}
	_, _, err = tm.run("", "--server", "http://127.0.0.1:1", "list")
	if err == nil || !strings.Contains(err.Error(), "cannot reach the annals server") {
		t.Errorf("unreachable server: %v", err)
	}
}

func TestClientModeUsesTheKeysPrincipal(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest") // tenant local
	var key struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "other", "--user", "u", "--json")), &key)
	s := startServe(t, tm)
	tm.env["ANNALS_SERVER"], tm.env["ANNALS_KEY"] = s.url, key.Secret
	if out := tm.mustRun("", "list"); strings.TrimSpace(out) != "No chats." {
		t.Errorf("another tenant's key lists:\n%s", out)
	}
	_, _, err := tm.run("", "show", "c1")
	if err == nil || err.Error() != `chat "c1" not found` {
		t.Errorf("show c1 with another tenant's key: %v", err)
	}
	tm.env["ANNALS_KEY"] = ""
	_, _, err = tm.run("", "list")
	if err == nil || !strings.Contains(err.Error(), "API key is required") {
		t.Errorf("no key: %v", err)
	}
}

func TestServeReadOnlyRefusesWrites(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	s := startServe(t, tm, "--read-only")
	code, body := httpDo(t, "POST", s.url+"/v1/sessions", "", `{"id":"x"}`)
	if code != 403 || !strings.Contains(body, "read-only") {
		t.Errorf("create on a read-only server: %d %s", code, body)
	}
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"list"}`); code != 200 {
		t.Errorf("list on a read-only server: %d", code)
	}
	_, _, err := tm.run("", "--server", s.url, "pin", "c1")
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("pin through a read-only server: %v", err)
	}
}
