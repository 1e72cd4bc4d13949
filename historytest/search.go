package historytest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
)

// searchCorpus writes a small corpus whose every document exists to prove one behaviour.
func searchCorpus(t *testing.T, open Opener) *env {
	e := newEnv(t, open)
	bg := context.Background()
	add := func(id, tenant, agent, title string, tags []string, attrs annals.Attributes, minutes int, entries ...*annals.Entry) {
		t.Helper()
		c := &annals.Chat{ID: id, TenantID: tenant, UserID: "u", AgentID: agent, Title: title, Tags: tags, Attributes: attrs,
			CreatedAt: base.Add(time.Duration(minutes) * time.Minute)}
		if _, err := annals.CreateChat(bg, e.store, c); err != nil {
			t.Fatal(err)
		}
		for i, en := range entries {
			if en.ID == "" {
				en.ID = id + "-" + itoa(i+1)
			}
			if en.Time.IsZero() {
				en.Time = c.CreatedAt.Add(time.Duration(i) * time.Second)
			}
		}
		if len(entries) > 0 {
			if _, err := annals.AppendEntries(bg, e.store, id, entries); err != nil {
				t.Fatal(err)
			}
		}
	}
	user := func(text string) *annals.Entry { return &annals.Entry{Kind: annals.KindUser, Text: text} }
	asst := func(text string) *annals.Entry { return &annals.Entry{Kind: annals.KindAssistant, Text: text} }
	tool := func(name, args, result string) *annals.Entry {
		return &annals.Entry{Kind: annals.KindTool, Tool: &annals.ToolCall{Name: name, Arguments: []byte(args), Result: result, Outcome: annals.OutcomeSucceeded}}
	}
	add("shop", "A", "coder", "Deploy the shop", []string{"ops", "q3-plan"}, annals.Attributes{"repository": "github.com/acme/shop"}, 10,
		user("what did we decide about emag.ro pricing?"),
		asst("We keep the emag.ro feed and drop the old CSV."),
		tool("Bash", `{"command":"curl -s http://192.168.0.1/health"}`, "ok"))
	add("code", "A", "coder", "Refactor helpers", []string{"refactor"}, annals.Attributes{"repository": "github.com/acme/lib"}, 20,
		user("rename foo_bar to fooBar in snake-case files"),
		tool("Read", `{"file_path":"internal/x/file.go"}`, "see file.go:123 for the helper"),
		asst("Done; the C++ binding in c++/bind.cc still uses foo_bar."))
	add("panic", "A", "ops", "Crash triage", nil, nil, 30,
		user("the server crashed"),
		tool("Bash", `{"command":"go test ./..."}`, "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:"),
		asst("Fixed the off-by-one in the pager."))
	add("cafe", "A", "writer", "Menu", nil, nil, 40,
		user("Le café est fermé le dimanche"),
		asst("Noted: closed on Sundays."))
	// Ranking: the term in title and body beats a single body mention; twin chats with the
	// same content differ only in recency.
	add("titled", "A", "writer", "Kubernetes upgrade", nil, nil, 50,
		user("plan the kubernetes upgrade"), asst("first drain the nodes"))
	add("mention", "A", "writer", "Weekly notes", nil, nil, 60,
		user("misc notes; kubernetes came up once"), asst("ok"))
	add("twin-old", "A", "writer", "Twin", nil, nil, 70, user("zeppelin maintenance window"))
	add("twin-new", "A", "writer", "Twin", nil, nil, 80, user("zeppelin maintenance window"))
	add("phrase", "A", "writer", "Phrases", nil, nil, 90,
		user("the release train leaves at noon"), asst("train schedules and release notes differ"))
	add("other", "B", "spy", "Tenant B secrets", nil, nil, 100, user("quokka operation details emag.ro"))
	return e
}

func testSearchLanguage(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	ctx := as(member("A", "u", "coder", annals.ScopeTenant))
	search := func(q string, mod ...func(*envelope.Request)) []string {
		t.Helper()
		req := &envelope.Request{Query: q}
		for _, m := range mod {
			m(req)
		}
		res, err := e.svc.Search(ctx, req)
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		got := hitIDs(res.Chats)
		slices.Sort(got)
		return got
	}
	cases := []struct {
		q    string
		want []string
	}{
		// Words are ANDed over the whole chat: each may match a different entry or the title.
		{"emag.ro pricing", []string{"shop"}},
		{"deploy pricing", []string{"shop"}},
		{`"release train"`, []string{"phrase"}},
		{`"train release"`, nil},
		{"zepp*", []string{"twin-new", "twin-old"}},
		{"kubernetes -upgrade", []string{"mention"}},
		{"zeppelin OR quokka", []string{"twin-new", "twin-old"}},
		{"(emag.ro OR panic) feed", []string{"shop"}},
		{"role:user emag.ro", []string{"shop"}},
		{"role:assistant pricing", nil},
		{"tool:bash 192.168.0.1", []string{"shop"}},
		{"tool:Read 192.168.0.1", nil},
		{"agent:ops off-by-one", []string{"panic"}},
		{"tag:q3-plan emag.ro", []string{"shop"}},
		{"tag:q3 emag.ro", nil},
		{"attr.repository:github.com/acme/lib foo_bar", []string{"code"}},
		{"after:2026-01-10T10:15:00Z zeppelin", []string{"twin-new"}},
		{"before:2026-01-10T09:15:00Z emag.ro", []string{"shop"}},
		{"in:title kubernetes", []string{"titled"}},
		{"in:body drain", []string{"titled"}},
		{"in:tools 192.168.0.1", []string{"shop"}},
		{"in:title pricing", nil},
		// Punctuated tokens people really search for.
		{"emag.ro", []string{"shop"}},
		{"foo_bar", []string{"code"}},
		{"snake-case", []string{"code"}},
		{"file.go:123", []string{"code"}},
		{"c++", []string{"code"}},
		{"192.168.0.1", []string{"shop"}},
		{"panic: runtime error: index out of range [3] with length 3", []string{"panic"}},
		// Case and accents fold.
		{"CAFE FERME", []string{"cafe"}},
		{"Café", []string{"cafe"}},
		// Another tenant's words are invisible.
		{"quokka", nil},
	}
	for _, tc := range cases {
		if got := search(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.q, got, tc.want)
		}
	}
	for _, q := range []string{"", "   ", "!!!", "-foo", `""`, "((("} {
		_, err := e.svc.Search(ctx, &envelope.Request{Query: q})
		wantCode(t, "query "+q, err, annals.EINVALID)
	}
	res, err := e.svc.Search(ctx, &envelope.Request{Query: "quokka"})
	if err != nil || res.Total != 0 || len(res.Chats) != 0 {
		t.Errorf("other tenant's term: total %d chats %d err %v", res.Total, len(res.Chats), err)
	}
}

func testSearchRanking(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	ctx := as(member("A", "u", "coder", annals.ScopeTenant))
	res, err := e.svc.Search(ctx, &envelope.Request{Query: "kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Chats); !slices.Equal(got, []string{"titled", "mention"}) {
		t.Errorf("ranking = %v, want the chat with the term in title and body first", got)
	}
	res, err = e.svc.Search(ctx, &envelope.Request{Query: "zeppelin"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Chats); !slices.Equal(got, []string{"twin-new", "twin-old"}) {
		t.Errorf("equal matches = %v, want the more recent first", got)
	}
	res, err = e.svc.Search(ctx, &envelope.Request{Query: "kubernetes", Sort: "recent"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Chats); !slices.Equal(got, []string{"mention", "titled"}) {
		t.Errorf("sort recent = %v", got)
	}
	_, err = e.svc.Search(ctx, &envelope.Request{Query: "x", Sort: "best"})
	wantCode(t, "unknown sort", err, annals.EINVALID)
}

func testSearchSnippets(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	ctx := as(member("A", "u", "coder", annals.ScopeTenant))
	res, err := e.svc.Search(ctx, &envelope.Request{Query: "foo_bar", MarkOpen: "<b>", MarkClose: "</b>"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chats) != 1 {
		t.Fatalf("hits = %v", hitIDs(res.Chats))
	}
	snips := res.Chats[0].Snippets
	seqs := []int64{}
	for _, s := range snips {
		seqs = append(seqs, s.Seq)
		if !strings.Contains(s.Text, "<b>foo_bar</b>") {
			t.Errorf("snippet %q lacks highlighted terms", s.Text)
		}
	}
	slices.Sort(seqs)
	if !slices.Equal(seqs, []int64{1, 3}) {
		t.Errorf("snippet seqs = %v, want [1 3] (the entries that mention foo_bar)", seqs)
	}
	tool, err := e.svc.Search(ctx, &envelope.Request{Query: "192.168.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if s := tool.Chats[0].Snippets; len(s) != 1 || s[0].Seq != 3 || s[0].Kind != annals.KindTool || s[0].Tool != "Bash" {
		t.Errorf("tool snippet = %+v, want seq 3, tool Bash", s)
	}
	ent, err := e.svc.Search(ctx, &envelope.Request{Query: "foo_bar", Mode: "entries"})
	if err != nil {
		t.Fatal(err)
	}
	if ent.Total != 2 || len(ent.Entries) != 2 || ent.Entries[0].Entry.ChatID != "code" {
		t.Fatalf("entry mode = %+v", ent)
	}
	for _, h := range ent.Entries {
		if h.Entry.Seq != 1 && h.Entry.Seq != 3 {
			t.Errorf("entry hit at seq %d", h.Entry.Seq)
		}
		if !strings.Contains(h.Snippet, envelope.DefaultMarkOpen+"foo_bar"+envelope.DefaultMarkClose) {
			t.Errorf("entry snippet %q lacks the default markers", h.Snippet)
		}
	}
}

func testSearchFollowsWrites(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	ctx := as(member("A", "u", "coder", annals.ScopeTenant))
	bg := context.Background()
	count := func(q string) int {
		t.Helper()
		res, err := e.svc.Search(ctx, &envelope.Request{Query: q, Mode: "entries"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Total
	}
	if n := count("drop CSV"); n != 1 {
		t.Fatalf("before truncate: %d hits", n)
	}
	if _, err := annals.TruncateChat(bg, e.store, "shop", annals.TruncatePoint{Seq: 2}); err != nil {
		t.Fatal(err)
	}
	if n := count("drop CSV"); n != 0 {
		t.Errorf("truncated entry still found (%d hits)", n)
	}
	if n := count("pricing"); n != 1 {
		t.Errorf("the entry before the truncation point is gone (%d hits)", n)
	}
	if _, err := e.svc.Delete(as(admin(allScopes...)), &envelope.Request{Scope: "global", SessionID: "panic"}); err != nil {
		t.Fatal(err)
	}
	if n := count("off-by-one"); n != 0 {
		t.Errorf("deleted chat still found (%d hits)", n)
	}
}

func testSearchPaging(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	ctx := as(member("A", "u", "coder", annals.ScopeTenant))
	var seen []string
	req := &envelope.Request{Query: "the", Limit: 2}
	for i := 0; i < 10; i++ {
		res, err := e.svc.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Limit != 2 {
			t.Errorf("limit echoed %d", res.Limit)
		}
		seen = append(seen, hitIDs(res.Chats)...)
		if res.NextCursor == "" {
			if len(seen) != res.Total {
				t.Errorf("walked %d chats, total says %d", len(seen), res.Total)
			}
			break
		}
		req = &envelope.Request{Query: "the", Limit: 2, Cursor: res.NextCursor}
	}
	sorted := slices.Clone(seen)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(seen) || len(seen) < 3 {
		t.Errorf("cursor walk visited %v", seen)
	}
}

// testSearchScoresNeverLeakOtherTenants: bm25 statistics span the whole index, so a member's
// scores would move with other tenants' words. Members get order only; admins get scores.
func testSearchScoresNeverLeakOtherTenants(t *testing.T, open Opener) {
	e := searchCorpus(t, open)
	res, err := e.svc.Search(as(member("A", "u", "coder", annals.ScopeTenant)), &envelope.Request{Query: "emag.ro"})
	if err != nil {
		t.Fatal(err)
	}
	ent, err := e.svc.Search(as(member("A", "u", "coder", annals.ScopeTenant)), &envelope.Request{Query: "emag.ro", Mode: "entries"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Chats) == 0 || len(ent.Entries) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Chats {
		if h.Score != 0 {
			t.Errorf("member search exposes score %v", h.Score)
		}
	}
	for _, h := range ent.Entries {
		if h.Score != 0 {
			t.Errorf("member entry search exposes score %v", h.Score)
		}
	}
	adm, err := e.svc.Search(as(admin(allScopes...)), &envelope.Request{Scope: "global", Query: "emag.ro"})
	if err != nil {
		t.Fatal(err)
	}
	if len(adm.Chats) == 0 || adm.Chats[0].Score == 0 {
		t.Errorf("admin global search lacks scores: %+v", adm.Chats)
	}
}
