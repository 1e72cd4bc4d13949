package historytest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/redact"
)

// testRedaction proves invariant 7: what goes through the capture path is stored already
// redacted, so neither get nor the full-text index can hand a secret back.
func testRedaction(t *testing.T, open Opener) {
	e := newEnv(t, open)
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	capture := &history.RedactingCapture{Store: e.store, Redactor: r}
	bg := context.Background()
	const key = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	chat := &annals.Chat{ID: "x1", TenantID: "A", UserID: "ua1", Title: "token " + key,
		Attributes: annals.Attributes{"remote": "https://x-access-token:" + key + "@github.com/o/r"}}
	if _, err := annals.CreateChat(bg, capture, chat); err != nil {
		t.Fatal(err)
	}
	// Creating it again with the same input is still idempotent: redaction is deterministic.
	if _, err := annals.CreateChat(bg, capture, chat); err != nil {
		t.Fatalf("re-creating the same chat through the redacting path: %v", err)
	}
	entries := []*annals.Entry{
		{ID: "u", Kind: annals.KindUser, Text: "use " + key + " please <private>my diary</private> thanks"},
		{ID: "t", Kind: annals.KindTool, Tool: &annals.ToolCall{Name: "Bash", Arguments: []byte(`{"env":{"GITHUB_TOKEN":"` + key + `"},"cmd":"gh repo list"}`), Result: "authenticated with " + key, Outcome: annals.OutcomeSucceeded}},
	}
	if _, err := annals.AppendEntries(bg, capture, "x1", entries); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(entries[0].Text, key) {
		t.Error("the capture path modified the caller's entry in place")
	}
	ctx := as(member("A", "ua1", "", annals.ScopeUser))
	got, err := e.svc.Get(ctx, &envelope.Request{SessionID: "x1"})
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := json.Marshal(got)
	if strings.Contains(string(blob), key) || strings.Contains(string(blob), "my diary") {
		t.Errorf("get returned a secret or private text: %s", blob)
	}
	if !strings.Contains(string(blob), "[redacted:github_token]") {
		t.Errorf("no redaction marker in %s", blob)
	}
	if !json.Valid(got.Entries[1].Tool.Arguments) {
		t.Errorf("tool arguments are no longer valid JSON: %s", got.Entries[1].Tool.Arguments)
	}
	for _, term := range []string{key, "diary"} {
		hits, err := e.store.(annals.TextIndex).MatchEntries(bg, annals.TextMatch{Owner: annals.Owner{AllTenants: true}, Terms: []string{term}})
		if err != nil || len(hits) != 0 {
			t.Errorf("index hits for %q: %v (%v)", term, hits, err)
		}
	}
	// Titles set through the service are redacted too.
	svc := newService(history.Config{Store: e.store, Redactor: r})
	rn, err := svc.Rename(ctx, &envelope.Request{SessionID: "x1", Title: ptr("now with " + key)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rn.Chat.Title, key) {
		t.Errorf("rename stored a secret: %q", rn.Chat.Title)
	}
}

// testTagsAreRedacted proves that a secret pasted into a tag is stored masked, whether the tag
// comes with a new chat, through the capture path as a caller, or through annotate, and that no
// list or search by the secret finds it.
func testTagsAreRedacted(t *testing.T, open Opener) {
	e := newEnv(t, open)
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc := newService(history.Config{Store: e.store, Redactor: r})
	const key = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	const npm = "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	ctx := as(member("A", "ua1", "", annals.ScopeUser))
	if _, err := annals.CreateChat(ctx, svc, &annals.Chat{ID: "t1", Tags: []string{"ops", key, "token=" + key}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Annotate(ctx, &envelope.Request{Op: history.OpAnnotate, SessionID: "t1", Tags: ptr([]string{"ops", npm, "release"})}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Capture(ctx, []annals.CaptureOp{{Chat: &annals.Chat{ID: "t2", Tags: []string{key}}}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"t1", "t2"} {
		c := mustFind(t, e.store, id)
		for _, tag := range c.Tags {
			if strings.Contains(tag, key) || strings.Contains(tag, npm) {
				t.Errorf("chat %s stored the secret tag %q", id, tag)
			}
		}
	}
	if got := mustFind(t, e.store, "t1").Tags; strings.Join(got, ",") != "ops,[redacted:npm_token],release" {
		t.Errorf("t1 tags = %q, want ops, the npm marker, release", got)
	}
	for _, q := range []string{key, npm, "tag:" + key} {
		res, err := svc.Search(ctx, &envelope.Request{Query: `"` + q + `"`})
		if err != nil {
			continue // a query the language refuses finds nothing either
		}
		if len(res.Chats) != 0 {
			t.Errorf("search %q found %d chats by a secret tag", q, len(res.Chats))
		}
	}
	list, err := svc.List(ctx, &envelope.Request{Op: history.OpList, Tag: key})
	if err != nil || len(list.Chats) != 0 {
		t.Errorf("list tag=<secret>: %v, %d chats; want none", err, len(list.Chats))
	}
}
