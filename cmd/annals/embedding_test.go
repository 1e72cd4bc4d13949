package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeSession writes a Claude Code transcript of prompts and answers (no title: the chat is
// known only by its words) where Claude Code keeps it.
func claudeSession(t *testing.T, dir, id string, turns ...string) {
	t.Helper()
	var b strings.Builder
	parent := "null"
	for i, text := range turns {
		uuid := fmt.Sprintf("%s-%d", id, i)
		role := "user"
		content := fmt.Sprintf("%q", text)
		if i%2 == 1 {
			role = "assistant"
			content = fmt.Sprintf(`[{"type":"text","text":%q}]`, text)
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"cwd":"/home/dev/app","sessionId":%q,"type":%q,"message":{"role":%q,"content":%s},"uuid":%q,"timestamp":"2025-05-0%dT09:00:0%d.000Z"}`+"\n",
			parent, id, role, role, content, uuid, 1+len(id)%8, i%10)
		parent = fmt.Sprintf("%q", uuid)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

type relatedJSON struct {
	Results []struct {
		Chat struct {
			ID string `json:"id"`
		} `json:"chat"`
	} `json:"results"`
	Candidates int `json:"candidates"`
}

func relatedIDs(t *testing.T, out string) (ids []string, candidates int) {
	t.Helper()
	var r relatedJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("related --json: %v\n%s", err, out)
	}
	for _, x := range r.Results {
		ids = append(ids, x.Chat.ID)
	}
	return ids, r.Candidates
}

// The new user's complaint (issue 28): right after an import, related finds the obviously
// related chat, with no backfill and no curation: import embeds what it wrote, and the embedded
// text is the chats' own words.
func TestImportThenRelatedFindsTheRelatedChat(t *testing.T) {
	tm := newTestMain(t)
	dir := filepath.Join(tm.home, "sessions")
	claudeSession(t, dir, "pg-1", "the postgres replica lags behind the primary after failover",
		"Replication lag grows because the replica replays WAL slowly; check the replay position.")
	claudeSession(t, dir, "pg-2", "why is the replica so far behind the primary database",
		"The standby's WAL replay is slow: look at replication lag and the replay position.")
	claudeSession(t, dir, "css", "center a div horizontally with flexbox",
		"Use display flex and justify-content center on the parent element.")
	tm.mustRun("", "import", "--format", "claude-code", dir)
	ids, candidates := relatedIDs(t, tm.mustRun("", "related", "--json", "claude-code:pg-1"))
	if candidates != 2 || len(ids) == 0 || ids[0] != "claude-code:pg-2" {
		t.Fatalf("related to pg-1 right after the import = %q among %d candidates, want claude-code:pg-2 first among 2", ids, candidates)
	}
	// Nothing is left for a backfill: every imported chat already has a current vector.
	if out := tm.mustRun("", "reindex", "--embeddings"); !strings.HasPrefix(out, "embedded 0 chats") {
		t.Errorf("reindex --embeddings after the import: %q, want nothing left to embed", out)
	}
	// A chat that grows materially is due again, and reindex embeds it.
	claudeSession(t, dir, "css", "center a div horizontally with flexbox",
		"Use display flex and justify-content center on the parent element.",
		"and vertically?", "Add align-items center as well.")
	tm.mustRun("", "import", "--format", "claude-code", "--quiet", dir)
	if out := tm.mustRun("", "reindex", "--embeddings"); !strings.HasPrefix(out, "embedded 0 chats") {
		t.Errorf("reindex --embeddings after an import that embedded the grown chat: %q", out)
	}
	if out, _, err := tm.run("", "reindex"); err == nil || !strings.Contains(err.Error(), "--embeddings") {
		t.Errorf("reindex without what: %q, %v; want a usage error naming --embeddings", out, err)
	}
}

// annals serve embeds what is captured through it (its worker, woken by the capture), and the
// backfill is an admin's operation over HTTP: POST /v1/admin/embeddings, which annals reindex
// --embeddings --server calls.
func TestServeEmbedsCapturedChatsAndAdminsBackfill(t *testing.T) {
	tm := newTestMain(t)
	keys := map[string]string{}
	for _, k := range [][]string{{"member", "--tenant", "acme", "--user", "alice"}, {"admin", "--tenant", "acme", "--role", "admin"}} {
		var key struct {
			Secret string `json:"secret"`
		}
		if err := json.Unmarshal([]byte(tm.mustRun("", append([]string{"keys", "create", "--json", "--name", k[0]}, k[1:]...)...)), &key); err != nil {
			t.Fatal(err)
		}
		keys[k[0]] = key.Secret
	}
	s := startServe(t, tm)
	tm.env["ANNALS_SERVER"] = s.url
	tm.env["ANNALS_KEY"] = keys["member"]
	tm.mustRun(`{"type":"chat","id":"k1"}
{"type":"entry","chat_id":"k1","id":"e1","kind":"user","text":"kubernetes ingress controller returns 504 timeouts"}
{"type":"chat","id":"k2"}
{"type":"entry","chat_id":"k2","id":"e1","kind":"user","text":"ingress timeouts (504) from the kubernetes controller"}
`, "ingest", "-")
	var ids []string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ids, _ = relatedIDs(t, tm.mustRun("", "related", "--json", "k1")); len(ids) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(ids) == 0 || ids[0] != "k2" {
		t.Fatalf("related to k1 after an ingest through the server = %q, want k2 (embedded by the server's worker)", ids)
	}
	out, _, err := tm.run("", "reindex", "--embeddings")
	if err == nil || !strings.Contains(err.Error(), "admin") {
		t.Errorf("reindex --embeddings with a member key: %q, %v; want a refusal naming the admin key", out, err)
	}
	tm.env["ANNALS_KEY"] = keys["admin"]
	if out := tm.mustRun("", "reindex", "--embeddings", "--json"); !strings.Contains(out, `"embedded":0`) {
		t.Errorf("reindex --embeddings --json as admin once the worker is done: %q", out)
	}
}

// annals search offers the ranks by meaning (issue 28): --rank hybrid and --rank semantic rank
// the chats an ingest embedded, hybrid with the snippets of what the words found; an unknown
// rank is refused by name.
func TestSearchRanksByMeaning(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest", "-")
	for _, rank := range []string{"hybrid", "semantic"} {
		out := tm.mustRun("", "search", "--rank", rank, "--json", "deploy")
		var page struct {
			Chats []struct {
				Chat     struct{ ID string } `json:"chat"`
				Snippets []any               `json:"snippets"`
			} `json:"chats"`
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("search --rank %s --json: %v\n%s", rank, err, out)
		}
		if len(page.Chats) == 0 || page.Chats[0].Chat.ID != "c1" {
			t.Fatalf("search --rank %s deploy = %s, want c1 first", rank, out)
		}
		if rank == "hybrid" && len(page.Chats[0].Snippets) == 0 {
			t.Errorf("search --rank hybrid: c1, found by its words, has no snippets: %s", out)
		}
	}
	if out, _, err := tm.run("", "search", "--rank", "fuzzy", "deploy"); err == nil || !strings.Contains(err.Error(), "rank") {
		t.Errorf("search --rank fuzzy: %q, %v; want an error naming the rank", out, err)
	}
}
