package historytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
	"github.com/annals-dev/annals/view"
)

// viewT0 anchors the view fixture; entry times are whole minutes after it, so boundary tests can
// name an entry's exact time.
var viewT0 = time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)

func vmin(n int) time.Time { return viewT0.Add(time.Duration(n) * time.Minute) }

type viewFixture struct {
	t     *testing.T
	store annals.Store
	svc   service
	view  *queryview.View
}

func newViewFixture(t *testing.T, open Opener) *viewFixture {
	t.Helper()
	store := open(t)
	svc := newService(history.Config{Store: store, View: store.(view.Store)})
	return &viewFixture{t: t, store: store, svc: svc, view: queryview.New(svc)}
}

// chat creates a chat whose last activity is max(created, last entry), with entries in order.
func (f *viewFixture) chat(id, tenant, user, agent string, createdMinute int, entries ...*annals.Entry) {
	f.t.Helper()
	ctx := context.Background()
	if _, err := annals.CreateChat(ctx, f.store, &annals.Chat{ID: id, TenantID: tenant, UserID: user, AgentID: agent, CreatedAt: vmin(createdMinute)}); err != nil {
		f.t.Fatalf("create %s: %v", id, err)
	}
	for i, e := range entries {
		e.ID = fmt.Sprintf("%s-%d", id, i+1)
	}
	if len(entries) > 0 {
		if _, err := annals.AppendEntries(ctx, f.store, id, entries); err != nil {
			f.t.Fatalf("append %s: %v", id, err)
		}
	}
}

func ve(kind annals.EntryKind, minute int, channel, correlation, text string) *annals.Entry {
	return &annals.Entry{Kind: kind, Time: vmin(minute), Channel: channel, CorrelationID: correlation, Text: text}
}

// The shared fixture. Tenant A:
//
//	a-main   user ua1, agent main: 1 user (in/agent/main, corr1, +1m), 2 assistant with reasoning
//	         (in/agent/main/reply, corr1, +2m), 3 tool (in/agent/main/tool, +3m), 4 system (sys,
//	         +4m), 5 event (in/agent/mainframe, +5m); last activity +5m
//	a-linked user ua1, no agent: 1 user (in/agent/helper/x, corr1, +2m), 2 assistant (+5m); created +10m
//	a-plain  user ua2, no agent: channels lit/100%, lit/100%/sub, lit/100x, lit/100%_*, lit/1000 at
//	         +6..+10m; created +20m
//	a-self   user ua2, agent aa2: 1 user (in/agent/helper, +11m); created +30m
//	a-empty  user ua1, no agent, no entries; created +40m
//
// Tenant B: b-main, user ub1, agent main: 1 user (in/agent/main, corr1, +2m) saying "reactor
// pressure secret", which tenant A must never see by any kind.
func (f *viewFixture) seed() {
	f.t.Helper()
	reply := ve(annals.KindAssistant, 2, "in/agent/main/reply", "corr1", "reactor pressure nominal")
	reply.Reasoning = "thinking about pressure"
	tool := ve(annals.KindTool, 3, "in/agent/main/tool", "", "")
	tool.Tool = &annals.ToolCall{Name: "shell", CallID: "call-1", Arguments: json.RawMessage(`{"cmd":"ls -l"}`), Result: "file1 file2", Outcome: annals.OutcomeSucceeded}
	f.chat("a-main", "A", "ua1", "main", 0,
		ve(annals.KindUser, 1, "in/agent/main", "corr1", "deploy the reactor"),
		reply, tool,
		ve(annals.KindSystem, 4, "sys", "", "compacted context"),
		ve(annals.KindEvent, 5, "in/agent/mainframe", "", "tick"))
	f.chat("a-linked", "A", "ua1", "", 10,
		ve(annals.KindUser, 2, "in/agent/helper/x", "corr1", "helper asks"),
		ve(annals.KindAssistant, 5, "", "", "same instant"))
	f.chat("a-plain", "A", "ua2", "", 20,
		ve(annals.KindUser, 6, "lit/100%", "", "hello 100% done_*"),
		ve(annals.KindUser, 7, "lit/100%/sub", "", "sub"),
		ve(annals.KindUser, 8, "lit/100x", "", "x"),
		ve(annals.KindUser, 9, "lit/100%_*", "", "star"),
		ve(annals.KindUser, 10, "lit/1000", "", "longer"))
	f.chat("a-self", "A", "ua2", "aa2", 30, ve(annals.KindUser, 11, "in/agent/helper", "", "self note"))
	f.chat("a-empty", "A", "ua1", "", 40)
	f.chat("b-main", "B", "ub1", "main", 0, ve(annals.KindUser, 2, "in/agent/main", "corr1", "reactor pressure secret"))
}

// allA is every tenant-A message in the search order: time, chat id, seq, all descending.
var allA = []string{"a-self#1", "a-plain#5", "a-plain#4", "a-plain#3", "a-plain#2", "a-plain#1",
	"a-main#5", "a-linked#2", "a-main#4", "a-main#3", "a-main#2", "a-linked#1", "a-main#1"}

func msgKeys(ms []view.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s#%d", m.Session, m.ID)
	}
	return out
}

// query runs one JSON body through the view, failing the test on an error.
func (f *viewFixture) query(t *testing.T, ctx context.Context, body string) any {
	t.Helper()
	ans, err := f.view.Query(ctx, strings.NewReader(body))
	if err != nil {
		t.Fatalf("query %s: %v", body, err)
	}
	return ans
}

func (f *viewFixture) search(t *testing.T, ctx context.Context, body string) *queryview.SearchAnswer {
	t.Helper()
	ans, ok := f.query(t, ctx, body).(*queryview.SearchAnswer)
	if !ok {
		t.Fatalf("query %s: answer is not a search answer", body)
	}
	return ans
}

func (f *viewFixture) searchKeys(t *testing.T, ctx context.Context, body string) []string {
	t.Helper()
	return msgKeys(f.search(t, ctx, body).Messages)
}

func (f *viewFixture) wantInvalid(t *testing.T, ctx context.Context, body string, mentions ...string) {
	t.Helper()
	_, err := f.view.Query(ctx, strings.NewReader(body))
	wantCode(t, body, err, annals.EINVALID)
	for _, m := range mentions {
		if !strings.Contains(annals.ErrorMessage(err), m) {
			t.Errorf("%s: message %q does not mention %q", body, annals.ErrorMessage(err), m)
		}
	}
}

func testQueryView(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	f.seed()
	tenantA := as(member("A", "ua1", "aa1", annals.ScopeTenant, annals.ScopeUser))

	t.Run("KindsListsEveryKindAndIsACopy", func(t *testing.T) {
		want := []string{"agents", "conversation", "search", "sessions", "transcript"}
		got := queryview.Kinds()
		if !slices.Equal(got, want) {
			t.Fatalf("Kinds() = %v, want %v", got, want)
		}
		got[0] = "changed"
		if queryview.Kinds()[0] != "agents" {
			t.Error("changing the returned slice changed the next answer")
		}
	})

	t.Run("AgentsListsNounsFromChatsAndChannelsWithUnlinked", func(t *testing.T) {
		ans := f.query(t, tenantA, `{"kind":"agents"}`).(*queryview.AgentsAnswer)
		got := map[string][]string{}
		var order []string
		for _, a := range ans.Agents {
			got[a.Agent] = a.Sessions
			order = append(order, a.Agent)
			if a.SessionsTruncated {
				t.Errorf("agent %s: sessions_truncated set for a short list", a.Agent)
			}
		}
		// As in the reference: agents by noun, each one's sessions by id.
		if want := []string{"aa2", "helper", "main", "mainframe"}; !slices.Equal(order, want) {
			t.Errorf("agents = %v, want %v", order, want)
		}
		for agent, want := range map[string][]string{
			"aa2": {"a-self"}, "helper": {"a-linked", "a-self"}, "main": {"a-main"}, "mainframe": {"a-main"},
		} {
			if !slices.Equal(got[agent], want) {
				t.Errorf("agent %s sessions = %v, want %v", agent, got[agent], want)
			}
		}
		if want := []string{"a-empty", "a-plain"}; !slices.Equal(ans.Unlinked, want) {
			t.Errorf("unlinked = %v, want %v", ans.Unlinked, want)
		}
		if ans.AgentsTruncated || ans.UnlinkedTruncated {
			t.Error("truncated flags set for short lists")
		}
		if ans.AgentsLimit != view.MaxAgents || ans.SessionsLimit != view.MaxAgentSessions || ans.Scope != annals.ScopeTenant {
			t.Errorf("limits %d/%d scope %s; want %d/%d tenant", ans.AgentsLimit, ans.SessionsLimit, ans.Scope, view.MaxAgents, view.MaxAgentSessions)
		}
		// Self scope of agent aa2 reaches only its own chat.
		self := f.query(t, as(member("A", "ua2", "aa2", annals.ScopeSelf)), `{"kind":"agents","scope":"self"}`).(*queryview.AgentsAnswer)
		if len(self.Agents) != 2 || self.Agents[0].Agent != "aa2" || self.Agents[1].Agent != "helper" || len(self.Unlinked) != 0 {
			t.Errorf("self scope agents = %+v unlinked %v; want aa2 and helper on a-self only", self.Agents, self.Unlinked)
		}
	})

	t.Run("AgentsBoundsReportTruncation", func(t *testing.T) {
		got, err := f.store.(view.Store).ViewAgents(context.Background(), view.AgentsFilter{Owner: annals.Owner{TenantID: "A"}, MaxAgents: 2, MaxSessions: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Agents) != 2 || !got.AgentsTruncated {
			t.Errorf("agents %+v truncated=%v; want 2 and truncated", got.Agents, got.AgentsTruncated)
		}
		if h := got.Agents[1]; h.Agent != "helper" || !slices.Equal(h.Sessions, []string{"a-self"}) || !h.SessionsTruncated {
			t.Errorf("helper = %+v; want [a-self] with sessions_truncated", h)
		}
		if !slices.Equal(got.Unlinked, []string{"a-empty"}) || !got.UnlinkedTruncated {
			t.Errorf("unlinked %v truncated=%v; want [a-empty] truncated", got.Unlinked, got.UnlinkedTruncated)
		}
	})

	t.Run("SessionsCountsTimestampsAgentLinkageAndLimit", func(t *testing.T) {
		ans := f.query(t, tenantA, `{"kind":"sessions"}`).(*queryview.SessionsAnswer)
		var order []string
		byID := map[string]view.Session{}
		for _, s := range ans.Sessions {
			order = append(order, s.ID)
			byID[s.ID] = s
		}
		if want := []string{"a-empty", "a-self", "a-plain", "a-linked", "a-main"}; !slices.Equal(order, want) {
			t.Errorf("sessions = %v, want %v", order, want)
		}
		m := byID["a-main"]
		if m.Messages != 3 || m.Events != 2 || m.AgentID != "main" {
			t.Errorf("a-main messages %d events %d agent %q; want 3, 2, main", m.Messages, m.Events, m.AgentID)
		}
		if m.FirstAt == nil || !m.FirstAt.Equal(vmin(1)) || m.LastAt == nil || !m.LastAt.Equal(vmin(5)) {
			t.Errorf("a-main first/last = %v/%v, want %v/%v", m.FirstAt, m.LastAt, vmin(1), vmin(5))
		}
		if e := byID["a-empty"]; e.FirstAt != nil || e.LastAt != nil || e.Messages != 0 || e.Events != 0 {
			t.Errorf("a-empty = %+v; want no timestamps and zero counts", e)
		}
		if ans.Limit != view.DefaultSessions || ans.HasMore {
			t.Errorf("limit %d has_more %v; want %d false", ans.Limit, ans.HasMore, view.DefaultSessions)
		}
		for agent, want := range map[string][]string{
			"main":      {"a-main"},             // the chat's agent id
			"helper":    {"a-self", "a-linked"}, // in/agent/helper and in/agent/helper/x
			"mainframe": {"a-main"},             // in/agent/mainframe
			"mai":       {},                     // a prefix of a noun is not the noun
		} {
			got := f.query(t, tenantA, `{"kind":"sessions","agent":"`+agent+`"}`).(*queryview.SessionsAnswer)
			var ids []string
			for _, s := range got.Sessions {
				ids = append(ids, s.ID)
			}
			if !slices.Equal(ids, want) && !(len(ids) == 0 && len(want) == 0) {
				t.Errorf("sessions of agent %s = %v, want %v", agent, ids, want)
			}
		}
		one := f.query(t, tenantA, `{"kind":"sessions","limit":1}`).(*queryview.SessionsAnswer)
		if len(one.Sessions) != 1 || !one.HasMore || one.Limit != 1 {
			t.Errorf("limit 1: %d sessions has_more %v limit %d", len(one.Sessions), one.HasMore, one.Limit)
		}
		big := f.query(t, tenantA, `{"kind":"sessions","limit":100000}`).(*queryview.SessionsAnswer)
		if big.Limit != view.MaxSessions {
			t.Errorf("limit 100000 reported as %d, want %d", big.Limit, view.MaxSessions)
		}
		// As the reference does (max(1, ...)), a negative limit is clamped, not refused.
		if neg := f.query(t, tenantA, `{"kind":"sessions","limit":-1}`).(*queryview.SessionsAnswer); neg.Limit != 1 || len(neg.Sessions) != 1 {
			t.Errorf("limit -1: limit %d, %d sessions; want clamped to 1", neg.Limit, len(neg.Sessions))
		}
	})

	t.Run("TranscriptPagesBackwardsVisitingEveryMessageOnce", func(t *testing.T) {
		var pages [][]string
		before := ""
		for range 10 {
			ans := f.query(t, tenantA, `{"kind":"transcript","session":"a-main","limit":2`+before+`}`).(*queryview.TranscriptAnswer)
			if ans.Limit != 2 || ans.Session != "a-main" {
				t.Fatalf("limit %d session %q", ans.Limit, ans.Session)
			}
			pages = append(pages, msgKeys(ans.Messages))
			if !ans.HasMore {
				if ans.BeforeIDNext != nil {
					t.Errorf("before_id_next %d on the last page", *ans.BeforeIDNext)
				}
				break
			}
			if ans.BeforeIDNext == nil || *ans.BeforeIDNext != ans.Messages[0].ID {
				t.Fatalf("before_id_next = %v, want the page's oldest id %d", ans.BeforeIDNext, ans.Messages[0].ID)
			}
			before = fmt.Sprintf(`,"before_id":%d`, *ans.BeforeIDNext)
		}
		want := [][]string{{"a-main#4", "a-main#5"}, {"a-main#2", "a-main#3"}, {"a-main#1"}}
		if fmt.Sprint(pages) != fmt.Sprint(want) {
			t.Errorf("pages = %v, want %v", pages, want)
		}
		def := f.query(t, tenantA, `{"kind":"transcript","session":"a-main"}`).(*queryview.TranscriptAnswer)
		if def.Limit != view.DefaultTranscript || len(def.Messages) != 5 || def.HasMore {
			t.Errorf("default page: limit %d, %d messages, has_more %v", def.Limit, len(def.Messages), def.HasMore)
		}
		capped := f.query(t, tenantA, `{"kind":"transcript","session":"a-main","limit":5000}`).(*queryview.TranscriptAnswer)
		if capped.Limit != view.MaxTranscript {
			t.Errorf("limit 5000 reported as %d, want %d", capped.Limit, view.MaxTranscript)
		}
		noTools := f.query(t, tenantA, `{"kind":"transcript","session":"a-main","select":{"tool_results":false}}`).(*queryview.TranscriptAnswer)
		if got, want := msgKeys(noTools.Messages), []string{"a-main#1", "a-main#2", "a-main#4", "a-main#5"}; !slices.Equal(got, want) {
			t.Errorf("tool_results false transcript = %v, want %v", got, want)
		}
		// The reference reads id < before_id: nothing is before a negative id.
		if neg := f.query(t, tenantA, `{"kind":"transcript","session":"a-main","before_id":-1}`).(*queryview.TranscriptAnswer); len(neg.Messages) != 0 || neg.HasMore {
			t.Errorf("before_id -1: %d messages has_more %v; want none", len(neg.Messages), neg.HasMore)
		}
		f.wantInvalid(t, tenantA, `{"kind":"transcript"}`, "session")
	})

	t.Run("MessageShape", func(t *testing.T) {
		ans := f.query(t, tenantA, `{"kind":"transcript","session":"a-main"}`).(*queryview.TranscriptAnswer)
		b, err := json.Marshal(ans)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			Messages []map[string]json.RawMessage `json:"messages"`
			HasMore  *bool                        `json:"has_more"`
			Limit    *int                         `json:"limit"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		if wire.HasMore == nil || wire.Limit == nil || len(wire.Messages) != 5 {
			t.Fatalf("answer %s lacks has_more, limit or messages", b)
		}
		var keys []string
		for k := range wire.Messages[0] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"channel", "content", "correlation", "created_at", "event_id", "event_type", "id", "role", "session"}; !slices.Equal(keys, want) {
			t.Errorf("message keys = %v, want %v", keys, want)
		}
		if got, want := string(wire.Messages[2]["content"]), `{"role":"tool","text":"","tool":{"name":"shell","call_id":"call-1","arguments":{"cmd":"ls -l"},"result":"file1 file2","outcome":"succeeded"},"tool_call_id":"call-1","name":"shell","content":"file1 file2"}`; got != want {
			t.Errorf("tool content = %s, want %s", got, want)
		}
		if got, want := string(wire.Messages[1]["content"]), `{"role":"assistant","text":"reactor pressure nominal","reasoning":"thinking about pressure","tool_calls":[{"call_id":"call-1","fn_name":"shell","fn_arguments":{"cmd":"ls -l"}}]}`; got != want {
			t.Errorf("assistant content = %s, want %s", got, want)
		}
		// As in the reference, select.tool_calls false drops the assistant's tool_calls.
		noCalls := f.query(t, tenantA, `{"kind":"transcript","session":"a-main","limit":5,"select":{"tool_calls":false}}`).(*queryview.TranscriptAnswer)
		if b, _ := json.Marshal(noCalls.Messages[1].Content); string(b) != `{"role":"assistant","text":"reactor pressure nominal","reasoning":"thinking about pressure"}` {
			t.Errorf("tool_calls false: assistant content = %s", b)
		}
		m := ans.Messages[1]
		if m.ID != 2 || m.Session != "a-main" || m.Role != annals.KindAssistant || m.Channel != "in/agent/main/reply" || m.Correlation != "corr1" || !m.CreatedAt.Equal(vmin(2)) {
			t.Errorf("message 2 = %+v", m)
		}
	})

	t.Run("ConversationAcrossChatsInOrderWithCursor", func(t *testing.T) {
		ans := f.query(t, tenantA, `{"kind":"conversation","correlation":"corr1"}`).(*queryview.ConversationAnswer)
		want := []string{"a-main#1", "a-linked#1", "a-main#2"} // +1m, then +2m by chat id
		if got := msgKeys(ans.Messages); !slices.Equal(got, want) {
			t.Errorf("conversation = %v, want %v", got, want)
		}
		if ans.HasMore || ans.Cursor != nil || ans.Limit != view.DefaultConversation {
			t.Errorf("has_more %v cursor %v limit %d", ans.HasMore, ans.Cursor, ans.Limit)
		}
		var walked []string
		cursor := ""
		for range 10 {
			a := f.query(t, tenantA, `{"kind":"conversation","correlation":"corr1","limit":1`+cursor+`}`).(*queryview.ConversationAnswer)
			walked = append(walked, msgKeys(a.Messages)...)
			if !a.HasMore {
				break
			}
			cursor = `,"cursor":"` + *a.Cursor + `"`
		}
		if !slices.Equal(walked, want) {
			t.Errorf("walk with limit 1 = %v, want %v", walked, want)
		}
		global := f.query(t, as(admin(allScopes...)), `{"kind":"conversation","correlation":"corr1","scope":"global"}`).(*queryview.ConversationAnswer)
		if got := msgKeys(global.Messages); !slices.Equal(got, append(want, "b-main#1")) {
			t.Errorf("admin global conversation = %v", got)
		}
		f.wantInvalid(t, tenantA, `{"kind":"conversation"}`, "correlation")
	})

	t.Run("SearchDefaultsOrderAndLimits", func(t *testing.T) {
		ans := f.search(t, tenantA, `{"kind":"search"}`)
		if got := msgKeys(ans.Messages); !slices.Equal(got, allA) {
			t.Errorf("search = %v, want %v", got, allA)
		}
		if ans.Limit != view.DefaultSearch || ans.HasMore || ans.Cursor != nil {
			t.Errorf("limit %d has_more %v cursor %v", ans.Limit, ans.HasMore, ans.Cursor)
		}
		if ans.ContentChars != view.MaxContentChars || ans.ResultChars != view.MaxContentChars {
			t.Errorf("caps %+v", ans.Caps)
		}
		if got := f.search(t, tenantA, `{"kind":"search","page":{"limit":100000}}`).Limit; got != view.MaxSearch {
			t.Errorf("page.limit 100000 reported as %d, want %d", got, view.MaxSearch)
		}
		if got := f.search(t, tenantA, `{"kind":"search","page":{"limit":-5}}`); got.Limit != 1 || len(got.Messages) != 1 {
			t.Errorf("page.limit -5: limit %d, %d messages; want clamped to 1", got.Limit, len(got.Messages))
		}
		f.wantInvalid(t, tenantA, `{"kind":"search","page":{"cursor":"not-a-cursor"}}`, "page.cursor")
		conv := f.query(t, tenantA, `{"kind":"conversation","correlation":"corr1","limit":1}`).(*queryview.ConversationAnswer)
		f.wantInvalid(t, tenantA, `{"kind":"search","page":{"cursor":"`+*conv.Cursor+`"}}`, "page.cursor")
	})

	t.Run("SearchCursorWalkVisitsEveryRowOnce", func(t *testing.T) {
		// As in the reference, tool_results false drops the tool rows after the page is cut: a
		// page may hold fewer messages than its limit while more follow, and the walk still
		// visits every other row once.
		for _, tc := range []struct {
			name, sel string
			want      []string
			full      bool
		}{
			{"AllRows", ``, allA, true},
			{"ToolRowsDroppedAfterThePageIsCut", `,"select":{"tool_results":false}`, slices.DeleteFunc(slices.Clone(allA), func(k string) bool { return k == "a-main#3" }), false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var walked []string
				page := `"limit":3`
				for i := 0; ; i++ {
					ans := f.search(t, tenantA, `{"kind":"search","page":{`+page+`}`+tc.sel+`}`)
					walked = append(walked, msgKeys(ans.Messages)...)
					if !ans.HasMore {
						if ans.Cursor != nil {
							t.Errorf("cursor %q on the last page", *ans.Cursor)
						}
						break
					}
					if tc.full && len(ans.Messages) != 3 {
						t.Errorf("page %d holds %d messages, want a full page of 3", i, len(ans.Messages))
					}
					if ans.Cursor == nil || i > 10 {
						t.Fatalf("page %d: has_more without cursor, or no end", i)
					}
					page = `"limit":3,"cursor":"` + *ans.Cursor + `"`
				}
				if !slices.Equal(walked, tc.want) {
					t.Errorf("walk = %v, want %v", walked, tc.want)
				}
			})
		}
	})

	t.Run("SearchChannelPrefixesMatchWholeSegmentsLiterally", func(t *testing.T) {
		for _, tc := range []struct {
			channels string
			want     []string
		}{
			{`["in/agent/main"]`, []string{"a-main#3", "a-main#2", "a-main#1"}}, // not in/agent/mainframe
			{`["in/agent/main/"]`, nil},                                         // taken as given, as the reference takes it: in/agent/main//...
			{`["/"]`, nil},
			{`["in/agent/main/tool"]`, []string{"a-main#3"}},
			{`["in/agent/helper", "sys"]`, []string{"a-self#1", "a-main#4", "a-linked#1"}},
			{`["lit/100%"]`, []string{"a-plain#2", "a-plain#1"}}, // not lit/100x, lit/100%_*, lit/1000
			{`["lit/100%_*"]`, []string{"a-plain#4"}},
			{`["lit/100_"]`, nil}, // _ is not a wildcard
			{`["lit/%"]`, nil},    // % is not a wildcard
			{`["lit/*"]`, nil},    // * is not a glob
			{`["lit/100"]`, nil},  // lit/1000 is not below lit/100
			{`["in/agent"]`, []string{"a-self#1", "a-main#5", "a-main#3", "a-main#2", "a-linked#1", "a-main#1"}},
		} {
			got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"channels":`+tc.channels+`}}`)
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("channels %s = %v, want %v", tc.channels, got, tc.want)
			}
		}
		if got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"channels":[""]}}`); len(got) != 0 {
			t.Errorf(`channels [""] = %v, want none (no channel starts with "/")`, got)
		}
	})

	t.Run("SearchInvolvementAndRoles", func(t *testing.T) {
		// As in the reference, "agent" keeps the messages that are themselves on an agent channel
		// (in/agent/<noun>[/...]; their event's type), not every message of a linked chat.
		agent := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"involvement":"agent"}}`)
		want := []string{"a-self#1", "a-main#5", "a-main#3", "a-main#2", "a-linked#1", "a-main#1"}
		if !slices.Equal(agent, want) {
			t.Errorf("involvement agent = %v, want %v", agent, want)
		}
		if got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"involvement":"all"}}`); !slices.Equal(got, allA) {
			t.Errorf("involvement all = %v", got)
		}
		// As in the reference, only "agent" filters; any other value is all.
		if got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"involvement":"some"}}`); !slices.Equal(got, allA) {
			t.Errorf("involvement some = %v, want all", got)
		}
		f.wantInvalid(t, tenantA, `{"kind":"search","filter":{"involvement":"some"},"annals":{"strict":true}}`, "agent or all")
		if got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"roles":["tool"]}}`); !slices.Equal(got, []string{"a-main#3"}) {
			t.Errorf("roles tool = %v", got)
		}
		// The reference's roles are its three; system and event entries are found without a role.
		f.wantInvalid(t, tenantA, `{"kind":"search","filter":{"roles":["system","event"]}}`, `"system"`, "user, assistant, tool")
		f.wantInvalid(t, tenantA, `{"kind":"search","filter":{"roles":["bot"]}}`, `"bot"`, "user, assistant, tool")
	})

	t.Run("SearchTextIsASubstringAsInTheReference", func(t *testing.T) { testViewSubstring(t, open) })

	t.Run("SearchWordsAreLiteralWordsANDedThroughTheIndex", func(t *testing.T) {
		for _, tc := range []struct {
			text string
			want []string
		}{
			{"reactor", []string{"a-main#2", "a-main#1"}},
			{"reactor pressure", []string{"a-main#2"}},
			{"PRESSURE", []string{"a-main#2"}}, // also matches the reasoning; case-insensitive
			{"reactor*", []string{"a-main#2", "a-main#1"}},
			{"pressure -nominal", []string{"a-main#2"}}, // "-" is no NOT: both words must occur
			{"reactor OR tick", nil},                    // OR is a word, not an operator
			{`NEAR(reactor pressure)`, nil},
			{`"reactor`, []string{"a-main#2", "a-main#1"}},
			{"shell", []string{"a-main#3"}}, // tool name
			{"file2", []string{"a-main#3"}}, // tool result
			{"100", []string{"a-plain#1"}},
			{"   ", allA}, // blank text is no filter
		} {
			body, _ := json.Marshal(map[string]any{"kind": "search", "filter": map[string]string{"words": tc.text}})
			got := f.searchKeys(t, tenantA, string(body))
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("words %q = %v, want %v", tc.text, got, tc.want)
			}
		}
		f.wantInvalid(t, tenantA, `{"kind":"search","filter":{"words":"!!! ---"}}`, "no words")
	})

	t.Run("SearchTimeBoundsCompareAsTheReferenceDoes", func(t *testing.T) {
		// The reference compares its bounds as text with its stored "...:00.123Z" times:
		// created_at >= since, created_at < until, whatever the text (see timeBound).
		at := func(d time.Duration) string { return vmin(2).Add(d).Format("2006-01-02T15:04:05.000Z") }
		nanos := func(d time.Duration) string { return vmin(2).Add(d).Format("2006-01-02T15:04:05.000000000Z") }
		both := []string{"a-main#2", "a-linked#1"}
		for _, tc := range []struct {
			filter string
			want   []string
		}{
			{`"since":"` + at(0) + `","until":"` + at(time.Millisecond) + `"`, both},
			{`"since":"` + at(0) + `","until":"` + at(0) + `"`, nil}, // until is exclusive
			{`"since":"` + at(time.Millisecond) + `","until":"` + at(time.Minute) + `"`, nil},
			{`"since":"` + at(time.Millisecond) + `","until":"` + at(time.Minute+time.Millisecond) + `"`, []string{"a-main#3"}},
			{`"since":"` + at(-time.Minute) + `","until":"` + at(-time.Millisecond) + `"`, []string{"a-main#1"}},
			{`"until":"` + at(-time.Minute) + `"`, nil},
			// "...00.000000000Z" sorts before "...00.000Z": a since there keeps that millisecond,
			// an until there ends before it.
			{`"since":"` + nanos(0) + `","until":"` + nanos(time.Minute) + `"`, both},
			{`"since":"` + vmin(11).Format(time.RFC3339) + `"`, nil},                           // "...:00Z" sorts after that second
			{`"since":"` + vmin(11).Format("2006-01-02T15:04:05") + `"`, []string{"a-self#1"}}, // "...:00" sorts before it
			{`"since":"2026-06-12T10:10:00Z","until":"2026-06-12T10:10:00Z"`, nil},
			{`"since":"2026-06-12T10:11:00.000Z","until":"2026-06-12T10:11:00.001Z"`, []string{"a-self#1"}},
			{`"until":"2026-06-12"`, nil}, // a date sorts before every time of its day
			{`"since":"2026-06-12","until":"2026-06-13"`, allA},
			{`"since":"2026-06","until":"2026-06-12T10:01:00.001"`, []string{"a-main#1"}},                   // any text
			{`"since":"2026-06-12T10:01:00+02:00","until":"2026-06-12T10:01:00.001"`, []string{"a-main#1"}}, // "+" sorts before "."
			{`"since":"2026-06-12T10:01:00Z","until":"2026-06-12T10:01:00.001"`, nil},                       // "Z" after it
			{`"since":"yesterday"`, nil},                                                                    // "y" sorts after every digit
			{`"until":"12/06/2026"`, nil},                                                                   // "1" sorts before every time annals stores
			{`"since":"0001-01-01"`, allA},                                                                  // before every time
			{`"since":"2300-01-01T00:00:00Z"`, nil},
			{`"until":"1200-01-01T00:00:00Z"`, nil},
			{`"since":"` + at(time.Second) + `","until":"` + at(0) + `"`, nil},
		} {
			got := f.searchKeys(t, tenantA, `{"kind":"search","filter":{`+tc.filter+`}}`)
			if (len(got) != 0 || len(tc.want) != 0) && !slices.Equal(got, tc.want) {
				t.Errorf("filter {%s} = %v, want %v", tc.filter, got, tc.want)
			}
		}
	})

	t.Run("SearchSelectProjects", func(t *testing.T) {
		toolMsg := func(sel string) view.Message {
			t.Helper()
			ans := f.search(t, tenantA, `{"kind":"search","filter":{"roles":["tool"]},"select":`+sel+`}`)
			if len(ans.Messages) != 1 || ans.Messages[0].Content.Tool == nil {
				t.Fatalf("select %s: %d messages", sel, len(ans.Messages))
			}
			return ans.Messages[0]
		}
		// tool_calls false drops an assistant's tool_calls (as the reference does); the tool row
		// itself stays whole.
		m := toolMsg(`{"tool_calls":false}`)
		if tl := m.Content.Tool; tl.Name != "shell" || tl.Arguments == nil || tl.CallID != "call-1" || tl.Result.Value != "file1 file2" || tl.Outcome != annals.OutcomeSucceeded {
			t.Errorf("tool_calls false: tool = %+v; want the tool row whole", tl)
		}
		m = toolMsg(`{"tool_calls":true,"tool_results":true}`)
		if tl := m.Content.Tool; tl.Name != "shell" || tl.Arguments == nil || string(tl.Arguments.Raw) != `{"cmd":"ls -l"}` {
			t.Errorf("tool_calls true: tool = %+v", tl)
		}
		m = toolMsg(`{"tool_results":{"truncate":4}}`)
		if r := m.Content.Tool.Result; !r.Truncated || r.Value != "file" || r.Chars != 11 {
			t.Errorf("truncate 4: result = %+v, want preview file of 11 chars", r)
		}
		m = toolMsg(`{"tool_results":{"truncate":0}}`)
		if r := m.Content.Tool.Result; !r.Truncated || r.Value != "" || r.Chars != 11 {
			t.Errorf("truncate 0: result = %+v, want only the length", r)
		}
		m = toolMsg(`{"tool_results":{"truncate":11}}`)
		if r := m.Content.Tool.Result; r.Truncated || r.Value != "file1 file2" {
			t.Errorf("truncate 11: result = %+v, want whole", r)
		}
		ans := f.search(t, tenantA, `{"kind":"search","select":{"tool_results":{"truncate":99999}}}`)
		if ans.ResultChars != view.MaxContentChars {
			t.Errorf("truncate 99999 reported as result_chars %d", ans.ResultChars)
		}
		noReason := f.search(t, tenantA, `{"kind":"search","filter":{"roles":["assistant"],"text":"nominal"},"select":{"reasoning":false}}`)
		if len(noReason.Messages) != 1 || noReason.Messages[0].Content.Reasoning != nil || noReason.Messages[0].Content.Text.Value != "reactor pressure nominal" {
			t.Errorf("reasoning false: %+v", noReason.Messages)
		}
		withReason := f.search(t, tenantA, `{"kind":"search","filter":{"text":"nominal"}}`)
		if r := withReason.Messages[0].Content.Reasoning; r == nil || r.Value != "thinking about pressure" {
			t.Errorf("reasoning kept by default: %+v", r)
		}
		noTools := f.searchKeys(t, tenantA, `{"kind":"search","filter":{"roles":["tool","assistant"]},"select":{"tool_results":false}}`)
		if !slices.Equal(noTools, []string{"a-linked#2", "a-main#2"}) {
			t.Errorf("tool_results false = %v, want the tool row gone", noTools)
		}
		// As in the reference: a negative truncate is 0 (max(0, truncate)); true and false
		// truncate to 1 and 0, and truncated_to says true and 0 (Python's max(0, True) is True);
		// any other value keeps results.
		m = toolMsg(`{"tool_results":{"truncate":-1}}`)
		if b, _ := json.Marshal(m.Content); !strings.Contains(string(b), `"content":"…","truncated_to":0`) {
			t.Errorf("truncate -1: %s", b)
		}
		m = toolMsg(`{"tool_results":{"truncate":false}}`)
		if b, _ := json.Marshal(m.Content); !strings.Contains(string(b), `"content":"…","truncated_to":0`) {
			t.Errorf("truncate false: %s", b)
		}
		m = toolMsg(`{"tool_results":{"truncate":true}}`)
		if b, _ := json.Marshal(m.Content); !strings.Contains(string(b), `"content":"f…","truncated_to":true`) {
			t.Errorf("truncate true: %s", b)
		}
		for _, odd := range []string{`"some"`, `7`, `null`, `{"truncate":"5"}`, `{"truncate":10.5}`, `{"x":1}`} {
			if r := toolMsg(`{"tool_results":` + odd + `}`).Content.Tool.Result; r.Value != "file1 file2" || r.Truncated {
				t.Errorf("tool_results %s: %+v, want the result whole", odd, r)
			}
		}
	})

	t.Run("TenantIsolationForEveryKind", func(t *testing.T) {
		// Tenant A with its widest scope never sees tenant B's b-main, by any kind.
		ag := f.query(t, tenantA, `{"kind":"agents"}`).(*queryview.AgentsAnswer)
		for _, a := range ag.Agents {
			if slices.Contains(a.Sessions, "b-main") {
				t.Errorf("agents answer lists b-main under %s", a.Agent)
			}
		}
		ss := f.query(t, tenantA, `{"kind":"sessions","agent":"main"}`).(*queryview.SessionsAnswer)
		for _, s := range ss.Sessions {
			if s.ID == "b-main" {
				t.Error("sessions answer lists b-main")
			}
		}
		// Another tenant's session and one that does not exist answer alike: as in the
		// reference, a page with no messages.
		for _, id := range []string{"b-main", "no-such-chat"} {
			ans := f.query(t, tenantA, `{"kind":"transcript","session":"`+id+`"}`).(*queryview.TranscriptAnswer)
			if ans.Session != id || len(ans.Messages) != 0 || ans.HasMore || ans.BeforeIDNext != nil {
				t.Errorf("transcript %s = %+v, want an empty page", id, ans)
			}
		}
		conv := f.query(t, tenantA, `{"kind":"conversation","correlation":"corr1"}`).(*queryview.ConversationAnswer)
		for _, body := range []string{
			`{"kind":"search","filter":{"text":"secret"}}`,
			`{"kind":"search","filter":{"channels":["in/agent/main"],"text":"reactor pressure"}}`,
			`{"kind":"search"}`,
		} {
			for _, k := range append(f.searchKeys(t, tenantA, body), msgKeys(conv.Messages)...) {
				if strings.HasPrefix(k, "b-") {
					t.Errorf("%s: tenant A sees %s", body, k)
				}
			}
		}
		// User scope narrows within the tenant: ua1's chats only.
		user := f.searchKeys(t, as(member("A", "ua1", "aa1", annals.ScopeUser)), `{"kind":"search"}`)
		for _, k := range user {
			if !strings.HasPrefix(k, "a-main") && !strings.HasPrefix(k, "a-linked") {
				t.Errorf("user scope of ua1 sees %s", k)
			}
		}
		if ans := f.query(t, as(member("A", "ua1", "aa1", annals.ScopeUser)), `{"kind":"transcript","session":"a-plain"}`).(*queryview.TranscriptAnswer); len(ans.Messages) != 0 {
			t.Errorf("another user's transcript under user scope holds %d messages", len(ans.Messages))
		}
		// Tenant B sees its own row: the data is there, the fold is what hides it.
		if got := f.searchKeys(t, as(member("B", "ub1", "main", annals.ScopeTenant)), `{"kind":"search","filter":{"text":"secret"}}`); !slices.Equal(got, []string{"b-main#1"}) {
			t.Errorf("tenant B search = %v, want [b-main#1]", got)
		}
	})

	t.Run("ScopeGates", func(t *testing.T) {
		bodies := []string{`{"kind":"agents"}`, `{"kind":"sessions"}`, `{"kind":"transcript","session":"a-main"}`,
			`{"kind":"conversation","correlation":"corr1"}`, `{"kind":"search"}`}
		for _, body := range bodies {
			_, err := f.view.Query(as(member("A", "ua1", "aa1")), strings.NewReader(body))
			wantCode(t, body+" with no scopes", err, annals.EFORBIDDEN)
			_, err = f.view.Query(context.Background(), strings.NewReader(body))
			wantCode(t, body+" with no principal", err, annals.EFORBIDDEN)
			withGlobal := strings.TrimSuffix(body, "}") + `,"scope":"global"}`
			_, err = f.view.Query(tenantA, strings.NewReader(withGlobal))
			wantCode(t, withGlobal+" as a member", err, annals.EFORBIDDEN)
		}
		f.wantInvalid(t, tenantA, `{"kind":"agents","scope":"everyone"}`, "everyone")
	})

	t.Run("StrictDecoding", func(t *testing.T) {
		// With annals.strict, unknown fields are refused by name at every level; without it they
		// are ignored, as the reference ignores them (it reads the fields it knows from a dict):
		// the answer is the one without them, and a wire owner never widens anything.
		strict := func(body string) string { return strings.TrimSuffix(body, "}") + `,"annals":{"strict":true}}` }
		for _, c := range []struct{ body, plain, mention string }{
			{`{"kind":"agents","tenant_id":"B"}`, `{"kind":"agents"}`, `"tenant_id"`},
			{`{"kind":"agents","session":"a-main"}`, `{"kind":"agents"}`, `"session"`},
			{`{"kind":"search","filter":{"channel":"x"}}`, `{"kind":"search","filter":{}}`, `"filter.channel"`},
			{`{"kind":"search","select":{"tools":true}}`, `{"kind":"search"}`, `"select.tools"`},
			{`{"kind":"search","page":{"offset":1}}`, `{"kind":"search"}`, `"page.offset"`},
			{`{"kind":"search","page":{"Limit":1}}`, `{"kind":"search"}`, `"page.Limit"`},
		} {
			f.wantInvalid(t, tenantA, strict(c.body), c.mention)
			got, err := json.Marshal(f.query(t, tenantA, c.body))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(f.query(t, tenantA, c.plain))
			if string(got) != string(want) {
				t.Errorf("%s answered %.200s, want the answer without the unknown field %.200s", c.body, got, want)
			}
		}
		f.wantInvalid(t, tenantA, strict(`{"kind":"search","filter":{"since":1}}`), `"filter.since"`, "string")
		f.wantInvalid(t, tenantA, `{"kind":"sessions","limit":"ten"}`, `"limit"`, "integer")
		f.wantInvalid(t, tenantA, `{"kind":"teleport"}`, `"teleport"`, "agents, conversation, search, sessions, transcript")
		f.wantInvalid(t, tenantA, `{"scope":"tenant"}`, "kind is required")
		f.wantInvalid(t, tenantA, `{"kind":"agents"}{"kind":"agents"}`, "more than one")
		f.wantInvalid(t, tenantA, `["agents"]`, "JSON object")
		f.wantInvalid(t, tenantA, ``, "empty")
		f.wantInvalid(t, tenantA, `{"kind":"agents"`, "malformed")
	})

	t.Run("OversizedContentIsReplacedByAMarker", func(t *testing.T) {
		testViewOversized(t, open)
	})
	t.Run("UnansweredCallsLiveOnTheirAssistantOnly", func(t *testing.T) {
		testViewUnansweredCalls(t, open)
	})
	t.Run("TranscriptPageCallsAreTheToolCalls", func(t *testing.T) {
		testViewPageCallsMatchToolCalls(t, open)
	})
	t.Run("ChannelAndAgentFiltersFoldASCIIBelowTheName", func(t *testing.T) {
		testViewFoldedPrefixes(t, open)
	})
	t.Run("ConversationMessagesLeaveTheLedgerOut", func(t *testing.T) {
		testViewLedgerConversation(t, open)
	})
	t.Run("CachedAnswersLastUntilACommit", func(t *testing.T) {
		testViewCache(t, open)
	})
}

func testViewOversized(t *testing.T, open Opener) {
	f := newViewFixture(t, open)
	capN := view.MaxContentChars
	exact := ve(annals.KindUser, 1, "", "", strings.Repeat("é", capN))
	// 2 bytes per character: beyond the read bound, so the preview is cut from a byte prefix.
	over := ve(annals.KindUser, 2, "", "", strings.Repeat("é", 2*capN+1))
	// Longer than the 4-bytes-per-character read bound, so SQLite must report the length.
	withNUL := ve(annals.KindUser, 3, "", "", "a\x00"+strings.Repeat("b", 4*capN+5))
	reason := ve(annals.KindAssistant, 4, "", "", "short")
	reason.Reasoning = strings.Repeat("r", capN+1)
	tool := ve(annals.KindTool, 5, "", "", "")
	tool.Tool = &annals.ToolCall{Name: "t", Arguments: json.RawMessage(`{"x":"` + strings.Repeat("a", capN) + `"}`), Result: strings.Repeat("z", capN+3)}
	f.chat("big", "A", "ua1", "", 0, exact, over, withNUL, reason, tool,
		ve(annals.KindEvent, 6, "in/agent/", "", "no noun"), ve(annals.KindEvent, 7, "in/agent//x", "", "empty noun"))
	ctx := as(member("A", "ua1", "", annals.ScopeTenant))

	// Nouns sort around each other's channels: x-y and x0 sit on both sides of the in/agent/x/...
	// block, and channels without a noun link to nothing.
	var nounEntries []*annals.Entry
	for i, ch := range []string{"in/agent/x/1", "in/agent/x-y", "in/agent/", "in/agent/x", "in/agent/x/2", "in/agent/x0", "in/agent//q", "in/agent/x/3/deep", "in/agentx", "in/agent/x!"} {
		nounEntries = append(nounEntries, ve(annals.KindEvent, 10+i, ch, "", "n"))
	}
	f.chat("nouns", "A", "ua1", "", 0, nounEntries...)
	ag := f.query(t, ctx, `{"kind":"agents"}`).(*queryview.AgentsAnswer)
	var nouns []string
	for _, a := range ag.Agents {
		nouns = append(nouns, a.Agent)
		if !slices.Equal(a.Sessions, []string{"nouns"}) {
			t.Errorf("agent %s sessions %v, want [nouns]", a.Agent, a.Sessions)
		}
	}
	if want := []string{"x", "x!", "x-y", "x0"}; !slices.Equal(nouns, want) || !slices.Equal(ag.Unlinked, []string{"big"}) {
		t.Errorf("agents %v unlinked %v; want %v and [big]", nouns, ag.Unlinked, want)
	}

	ans := f.query(t, ctx, `{"kind":"transcript","session":"big","limit":5,"before_id":6}`).(*queryview.TranscriptAnswer)
	if len(ans.Messages) != 5 {
		t.Fatalf("%d messages", len(ans.Messages))
	}
	if txt := ans.Messages[0].Content.Text; txt.Truncated || utf8.RuneCountInString(txt.Value) != capN {
		t.Errorf("a text of exactly %d characters was cut: truncated=%v chars=%d", capN, txt.Truncated, utf8.RuneCountInString(txt.Value))
	}
	if txt := ans.Messages[1].Content.Text; !txt.Truncated || txt.Chars != int64(2*capN+1) || txt.Value != strings.Repeat("é", capN) {
		t.Errorf("oversized text: truncated=%v chars=%d preview %d chars; want true, %d, %d", txt.Truncated, txt.Chars, utf8.RuneCountInString(txt.Value), 2*capN+1, capN)
	}
	// SQLite cannot count characters past a NUL, so chars falls back to the byte length.
	if txt := ans.Messages[2].Content.Text; !txt.Truncated || !strings.HasPrefix(txt.Value, "a\x00bbb") || utf8.RuneCountInString(txt.Value) != capN || txt.Chars != int64(4*capN+7) {
		t.Errorf("text with a NUL: truncated=%v chars=%d preview %d chars (%.8q); want a %d-character preview past the NUL of %d", txt.Truncated, txt.Chars, utf8.RuneCountInString(txt.Value), txt.Value, capN, 4*capN+7)
	}
	if r := ans.Messages[3].Content.Reasoning; r == nil || !r.Truncated || r.Chars != int64(capN+1) || ans.Messages[3].Content.Text.Value != "short" {
		t.Errorf("oversized reasoning: %+v", r)
	}
	tl := ans.Messages[4].Content.Tool
	if tl.Arguments == nil || !tl.Arguments.Truncated || tl.Arguments.Chars != int64(capN+8) || !strings.HasPrefix(tl.Arguments.Preview, `{"x":"aaa`) {
		t.Errorf("oversized arguments: %+v", tl.Arguments)
	}
	if !tl.Result.Truncated || tl.Result.Chars != int64(capN+3) || len(tl.Result.Value) != capN {
		t.Errorf("oversized result: truncated=%v chars=%d preview %d", tl.Result.Truncated, tl.Result.Chars, len(tl.Result.Value))
	}
	b, err := json.Marshal(ans.Messages[1].Content.Text)
	if err != nil {
		t.Fatal(err)
	}
	var marker map[string]any
	if err := json.Unmarshal(b, &marker); err != nil || marker["truncated"] != true || marker["chars"] != float64(2*capN+1) || marker["preview"] == nil {
		t.Errorf("wire marker = %.80s (%v), want {truncated: true, chars, preview}", b, err)
	}
	b, err = json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"arguments":{"truncated":true,"chars":`) {
		t.Errorf("wire arguments = %.120s, want the marker", b)
	}
}
