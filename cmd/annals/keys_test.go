package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestKeysCreateListRevoke(t *testing.T) {
	tm := newTestMain(t)
	out := tm.mustRun("", "keys", "create", "--tenant", "acme", "--user", "alice", "--name", "laptop")
	secret := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "annals_") {
			secret = f
		}
	}
	if secret == "" || !strings.Contains(out, "tenant acme, user alice, role member, scopes user") {
		t.Fatalf("keys create printed:\n%s", out)
	}
	var created struct {
		ID        string `json:"id"`
		Secret    string `json:"secret"`
		Principal struct {
			Role   string   `json:"role"`
			Scopes []string `json:"scopes"`
		} `json:"principal"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "keys", "create", "--tenant", "acme", "--role", "admin", "--json")), &created); err != nil {
		t.Fatal(err)
	}
	if created.Principal.Role != "admin" || strings.Join(created.Principal.Scopes, ",") != "self,user,tenant,global" || !strings.HasPrefix(created.Secret, "annals_") {
		t.Errorf("created %+v", created)
	}
	list := tm.mustRun("", "keys", "list")
	if strings.Contains(list, secret) || strings.Contains(list, created.Secret) || !strings.Contains(list, "laptop") || !strings.Contains(list, created.ID) {
		t.Errorf("keys list:\n%s", list)
	}
	listJSON := tm.mustRun("", "keys", "list", "--json")
	if strings.Contains(listJSON, secret) || strings.Contains(listJSON, "hash") {
		t.Errorf("keys list --json shows a secret or hash:\n%s", listJSON)
	}
	// The database holds no secret either.
	db, _ := os.ReadFile(tm.env["ANNALS_DB"])
	wal, _ := os.ReadFile(tm.env["ANNALS_DB"] + "-wal")
	if bytes.Contains(db, []byte(secret)) || bytes.Contains(wal, []byte(secret)) {
		t.Error("the database file holds a key secret")
	}
	tm.mustRun("", "keys", "revoke", created.ID)
	for _, line := range strings.Split(tm.mustRun("", "keys", "list"), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == created.ID && f[len(f)-1] == "-" {
			t.Errorf("the revoked key shows no revocation time: %s", line)
		}
	}
	_, _, err := tm.run("", "keys", "create", "--tenant", "acme", "--scope", "global")
	if err == nil || !strings.Contains(err.Error(), "--role admin") {
		t.Errorf("global on a member key: %v", err)
	}
	_, _, err = tm.run("", "keys", "create", "--tenant", "acme", "--scope", "siblings")
	if err == nil || !strings.Contains(err.Error(), "retired") {
		t.Errorf("retired scope: %v", err)
	}
	_, _, err = tm.run("", "keys", "revoke", "key_nope")
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("revoke unknown: %v", err)
	}

	// The server now needs a key: the member key works, no key and the revoked key do not.
	s := startServe(t, tm)
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", "", `{"op":"list"}`); code != 401 {
		t.Errorf("no key: %d", code)
	}
	if code, _ := httpDo(t, "POST", s.url+"/v1/history", created.Secret, `{"op":"list"}`); code != 401 {
		t.Errorf("revoked key: %d", code)
	}
	if code, body := httpDo(t, "POST", s.url+"/v1/history", secret, `{"op":"list"}`); code != 200 || !strings.Contains(body, `"scope":"user"`) {
		t.Errorf("member key: %d %s", code, body)
	}
}

// `annals --server URL --key KEY <command>` prints what the same command prints locally.
