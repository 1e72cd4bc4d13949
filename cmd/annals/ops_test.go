package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals/markdown"
)

func TestCurateCommandsChangeWhatListShows(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	if out := tm.mustRun("", "rename", "c2", "Renamed", "chat"); !strings.Contains(out, "renamed c2  Renamed chat") {
		t.Errorf("rename said %q", out)
	}
	tm.mustRun("", "tag", "c2", "alpha", "beta", "--description", "about greetings")
	tm.mustRun("", "pin", "c2")
	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Chats[0].ID != "c2" || list.Chats[0].Title != "Renamed chat" {
		t.Errorf("pinned, renamed c2 is not first: %+v", list.Chats)
	}
	if out := tm.mustRun("", "list", "--tag", "beta"); !strings.Contains(out, "c2") || strings.Contains(out, "c1 ") {
		t.Errorf("list --tag beta:\n%s", out)
	}
	tm.mustRun("", "archive", "c2")
	if out := tm.mustRun("", "list"); strings.Contains(out, "Renamed chat") {
		t.Errorf("archived chat still listed:\n%s", out)
	}
	if out := tm.mustRun("", "list", "--archived"); !strings.Contains(out, "[archived]") {
		t.Errorf("list --archived does not mark it:\n%s", out)
	}
	tm.mustRun("", "archive", "--restore", "c2")
	tm.mustRun("", "tag", "--clear", "c2")
	if out := tm.mustRun("", "list", "--tag", "beta"); !strings.Contains(out, "No chats.") {
		t.Errorf("tags not cleared:\n%s", out)
	}
}

func TestSearchCommand(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	if out := tm.mustRun("", "search", "emag.ro"); !strings.Contains(out, "Deploy the emag.ro shop") || strings.Contains(out, "Second chat") {
		t.Errorf("search emag.ro:\n%s", out)
	}
	if out := tm.mustRun("", "search", "nothing-like-this"); !strings.Contains(out, "No matches for") {
		t.Errorf("search for nothing:\n%s", out)
	}
	_, _, err := tm.run("", "search", "--in", "bogus", "x")
	if err == nil || !strings.Contains(err.Error(), "title, description, summary, tags") {
		t.Errorf("search --in bogus: %v", err)
	}
}

func TestRecapRelatedExportDelete(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	sum := tm.mustRun("", "recap", "c1")
	if !strings.Contains(sum, "deploy it please") && !strings.Contains(sum, "Goal") {
		t.Errorf("recap output does not name the goal:\n%s", sum)
	}
	if show := tm.mustRun("", "show", "c1"); !strings.Contains(show, "Summary:") {
		t.Errorf("show lacks the stored summary:\n%s", show)
	}
	if out := tm.mustRun("", "related", "--backfill"); !strings.Contains(out, "embedded") {
		t.Errorf("backfill said %q", out)
	}
	var rel struct {
		Results []struct {
			Chat struct{ ID string }
		}
		Candidates int
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "related", "--json", "--query", "deploy shop")), &rel); err != nil {
		t.Fatal(err)
	}
	if len(rel.Results) == 0 || rel.Results[0].Chat.ID != "c1" || rel.Candidates != 2 {
		t.Errorf("related --query = %+v", rel)
	}

	md := tm.mustRun("", "export", "c1")
	exp, err := markdown.Parse(strings.NewReader(md))
	if err != nil {
		t.Fatalf("export does not parse back: %v\n%s", err, md)
	}
	if exp.Chat.ID != "c1" || len(exp.Entries) != 3 || exp.Entries[1].Tool == nil || exp.Entries[1].Tool.Name != "Bash" {
		t.Errorf("markdown round trip = %+v", exp)
	}
	path := filepath.Join(t.TempDir(), "c1.json")
	tm.mustRun("", "export", "--format", "json", "--out", path, "c1")
	blob, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Entries []json.RawMessage }
	if err := json.Unmarshal(blob, &got); err != nil || len(got.Entries) != 3 {
		t.Errorf("json export: %v, %d entries", err, len(got.Entries))
	}

	if _, _, err := tm.run("", "delete", "c1"); err == nil || exitCode(err) != 2 {
		t.Errorf("delete without --yes: %v", err)
	}
	tm.mustRun("", "delete", "--yes", "c1")
	if _, _, err := tm.run("", "show", "c1"); err == nil || !strings.Contains(describe(err), "not found") {
		t.Errorf("show after delete: %v", err)
	}
}

func TestIngestIsRedactedAndRescanAppliesNewRules(t *testing.T) {
	tm := newTestMain(t)
	const key = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	in := `{"type":"chat","id":"s1"}
{"type":"entry","chat_id":"s1","id":"e1","kind":"user","text":"my token is ` + key + ` and ticket TICKET-123456"}
`
	tm.mustRun(in, "ingest")
	show := tm.mustRun("", "show", "s1")
	if strings.Contains(show, key) || !strings.Contains(show, "[redacted:github_token]") {
		t.Errorf("stored transcript is not redacted:\n%s", show)
	}
	if !strings.Contains(show, "TICKET-123456") {
		t.Fatalf("ticket should survive until a rule names it:\n%s", show)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("redact:\n  rules:\n    - name: ticket\n      pattern: 'TICKET-[0-9]{6}'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	var rep struct {
		EntriesChanged int `json:"entries_changed"`
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "redact", "--rescan", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.EntriesChanged != 1 {
		t.Errorf("rescan changed %d entries, want 1", rep.EntriesChanged)
	}
	if show := tm.mustRun("", "show", "s1"); strings.Contains(show, "TICKET-123456") || !strings.Contains(show, "[redacted:ticket]") {
		t.Errorf("rescan did not apply the new rule:\n%s", show)
	}
	if out := tm.mustRun("", "search", "123456"); !strings.Contains(out, "No matches for") {
		t.Errorf("the index still finds the redacted ticket number:\n%s", out)
	}
}

func TestConfigIsValidatedAtLoad(t *testing.T) {
	for name, tc := range map[string]struct{ yaml, want string }{
		"retired scope":   {"agents:\n  bot:\n    history_scope: [siblings]\n", "self, user, tenant, global"},
		"unknown key":     {"databse: x\n", "databse"},
		"bad provider":    {"embedder:\n  provider: magic\n", "hashing, openai, none"},
		"bad role":        {"principal:\n  role: king\n", "member, operator, admin"},
		"bad regexp":      {"redact:\n  rules:\n    - name: x\n      pattern: '('\n", "x"},
		"model required":  {"summarizer:\n  provider: openai\n", "summarizer.model"},
		"missing api key": {"summarizer:\n  provider: openai\n  model: m\n  api_key_env: NOPE_KEY\n", "NOPE_KEY"},
		"tenant model":    {"tenants:\n  acme:\n    summarizer:\n      provider: anthropic\n", "tenants.acme.summarizer.model"},
		"tenant empty":    {"tenants:\n  acme: {}\n", "tenants.acme needs a summarizer"},
		"agent empty":     {"tenants:\n  acme:\n    agents:\n      bot: {}\n", "tenants.acme.agents.bot.summarizer is required"},
		"agent provider":  {"tenants:\n  acme:\n    agents:\n      bot:\n        summarizer:\n          provider: magic\n", "extractive, openai, anthropic"},
		"inline key":      {"tenants:\n  acme:\n    summarizer:\n      provider: openai\n      model: m\n      api_key: sk-inline-secret\n", "api_key"},
	} {
		t.Run(name, func(t *testing.T) {
			tm := newTestMain(t)
			cfg := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(cfg, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := tm.run("", "list", "--config", cfg)
			if err == nil || !strings.Contains(describe(err), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	tm := newTestMain(t)
	_, _, err := tm.run("", "list", "--config", filepath.Join(t.TempDir(), "absent.yaml"))
	if err == nil {
		t.Error("an explicitly named config that does not exist was ignored")
	}
}

func TestConfiguredMemberPrincipalIsScoped(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(`{"type":"chat","id":"mine","tenant_id":"t1","user_id":"u1"}
{"type":"chat","id":"theirs","tenant_id":"t2","user_id":"u2"}
`, "ingest")
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("principal:\n  tenant: t1\n  user: u1\n  role: member\n  history_scope: [user, global]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.env["ANNALS_CONFIG"] = cfg
	var list listJSON
	if err := json.Unmarshal([]byte(tm.mustRun("", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if list.Total != 1 || list.Chats[0].ID != "mine" {
		t.Errorf("member sees %+v, want only its own chat", list.Chats)
	}
	if _, _, err := tm.run("", "show", "theirs"); err == nil || describe(err) != `chat "theirs" not found` {
		t.Errorf("show of another tenant's chat: %v", err)
	}
	if _, _, err := tm.run("", "list", "--scope", "global"); err == nil || !strings.Contains(describe(err), "admin") {
		t.Errorf("member global list: %v", err)
	}
}

func TestSearchFindsBodiesWithSnippetsAndEntries(t *testing.T) {
	tm := newTestMain(t)
	tm.mustRun(twoChats, "ingest")
	out := tm.mustRun("", "search", "permission", "denied")
	if !strings.Contains(out, "c1  Deploy the emag.ro shop") || !strings.Contains(out, "#2 tool Bash: «permission» «denied»") {
		t.Errorf("body search output:\n%s", out)
	}
	out = tm.mustRun("", "search", "--entries", "tool:bash", "denied")
	if !strings.Contains(out, "c1 #2 tool Bash") || strings.Contains(out, "#3") {
		t.Errorf("entry search with tool filter:\n%s", out)
	}
	var res struct {
		Chats []struct {
			Chat     struct{ ID string }
			Snippets []struct {
				Seq  int64
				Text string
			}
		}
		Total int
	}
	if err := json.Unmarshal([]byte(tm.mustRun("", "search", "--json", "deploy")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Chats[0].Chat.ID != "c1" || len(res.Chats[0].Snippets) == 0 {
		t.Errorf("search --json deploy = %+v", res)
	}
	around := tm.mustRun("", "show", "--around", "2", "--context", "0", "c1")
	if !strings.Contains(around, "#2 tool Bash") || strings.Contains(around, "#1 user") || strings.Contains(around, "#3 assistant") {
		t.Errorf("show --around 2 --context 0:\n%s", around)
	}
	if _, _, err := tm.run("", "search", "!!!"); err == nil || !strings.Contains(describe(err), "no searchable words") {
		t.Errorf("all-punctuation query: %v", err)
	}
}
