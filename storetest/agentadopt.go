package storetest

import (
	"context"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/query"
)

// adoptAgentTests are the cases of annals.AgentAdopter, which every store implements: the one
// change of a chat's owner, from no agent to one.
func adoptAgentTests() []test {
	return []test{
		{"OwnerFoldsFollowTheAgent", testAdoptAgentFolds},
		{"OnlyFromNoAgentAndOnlyTheRefsChat", testAdoptAgentRefused},
	}
}

func adopterOf(t *testing.T, s Store) annals.AgentAdopter {
	t.Helper()
	a, ok := s.(annals.AgentAdopter)
	if !ok {
		t.Fatalf("%T does not implement annals.AgentAdopter", s)
	}
	return a
}

// testAdoptAgentFolds: after AdoptAgent, every read that folds the owner — the chat list, the
// text index, chat and entry search (the search documents carry owner tokens), the embeddings —
// finds the chat under its new agent and no longer under another agent; nothing else of the
// chat changes.
func testAdoptAgentFolds(t *testing.T, s Store) {
	ctx := context.Background()
	c := NewChat("old", "t1")
	c.UserID = "u1"
	c.Title = "adopted chat"
	c.Attributes = annals.Attributes{"source": "codex"}
	mustCreateChat(t, s, c)
	mustAppend(t, s, "old", TextEntry("e1", annals.KindUser, "zorblax rounding"), TextEntry("e2", annals.KindAssistant, "fixed"))
	mustUpsertEmbedding(t, s, "old", "m", []float32{1, 0})
	before := mustChat(t, s, "old")

	got, err := adopterOf(t, s).AdoptAgent(ctx, before.Ref(), "codex")
	if err != nil {
		t.Fatalf("AdoptAgent: %v", err)
	}
	if got.AgentID != "codex" || got.ID != "old" {
		t.Fatalf("AdoptAgent answered %s with agent %q, want old with codex", got.ID, got.AgentID)
	}
	after := mustChat(t, s, "old")
	want := *before
	want.AgentID = "codex"
	wantSameChat(t, "the chat after AdoptAgent", after, &want)
	if len(mustEntries(t, s, "old")) != 2 {
		t.Errorf("the chat's entries changed")
	}

	codex := annals.Owner{TenantID: "t1", UserID: "u1", AgentID: "codex"}
	other := annals.Owner{TenantID: "t1", AgentID: "claude-code"}
	wantChatSet(t, s, "list under the new agent", annals.ChatFilter{Owner: codex}, "old")
	wantChatSet(t, s, "list filtered by the new agent", annals.ChatFilter{Owner: tenant("t1"), Agent: ptr("codex")}, "old")
	wantChatSet(t, s, "list filtered by no agent", annals.ChatFilter{Owner: tenant("t1"), Agent: ptr("")})
	wantChatSet(t, s, "list under another agent", annals.ChatFilter{Owner: other})
	wantRefs(t, "entries matched under the new agent", mustMatchEntries(t, s, codex, "zorblax"), []annals.EntryRef{ref("old", 1)})
	wantRefs(t, "entries matched under another agent", mustMatchEntries(t, s, other, "zorblax"), nil)
	wantIDs(t, "chats matched under the new agent", mustMatchChats(t, s, codex, "adopted"), []string{"old"})
	for _, mode := range []annals.SearchMode{annals.SearchChatsMode, annals.SearchEntriesMode} {
		for _, tc := range []struct {
			owner annals.Owner
			want  int
		}{{codex, 1}, {other, 0}} {
			if n := searchCount(t, s, tc.owner, mode, "zorblax"); n != tc.want {
				t.Errorf("search %s under %s found %d, want %d", mode, tc.owner, n, tc.want)
			}
		}
	}
	if vs := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: codex, Model: "m", Limit: 10}); len(vs) != 1 {
		t.Errorf("embeddings under the new agent = %d, want 1", len(vs))
	}
	if vs := mustFindEmbeddings(t, s, annals.EmbeddingFilter{Owner: other, Model: "m", Limit: 10}); len(vs) != 0 {
		t.Errorf("embeddings under another agent = %d, want 0", len(vs))
	}
	// The chat goes on as its agent's: an append bound to the new owner lands.
	mustAppend(t, s, "old", TextEntry("e3", annals.KindUser, "more zorblax"))
	if n := searchCount(t, s, codex, annals.SearchEntriesMode, "zorblax"); n != 2 {
		t.Errorf("entry search after a later append found %d, want 2", n)
	}
}

// testAdoptAgentRefused: a chat that has an agent is never given another, a stale ref (another
// owner, another incarnation, a deleted chat) changes nothing, and a bad agent id is invalid.
func testAdoptAgentRefused(t *testing.T, s Store) {
	ctx := context.Background()
	a := adopterOf(t, s)
	has := NewChat("has", "t1")
	has.AgentID = "claude-code"
	mustCreateChat(t, s, has)
	mustCreateChat(t, s, NewChat("none", "t1"))

	hasRef := mustChat(t, s, "has").Ref()
	_, err := a.AdoptAgent(ctx, hasRef, "codex")
	wantCode(t, "AdoptAgent on a chat with an agent", err, annals.EINVALID)
	staleOwner := hasRef
	staleOwner.Owner.AgentID = ""
	_, err = a.AdoptAgent(ctx, staleOwner, "codex")
	wantCode(t, "AdoptAgent with a ref whose agent is not the chat's", err, annals.ENOTFOUND)
	if got := mustChat(t, s, "has"); got.AgentID != "claude-code" {
		t.Errorf("a chat with an agent now has %q", got.AgentID)
	}

	ref := mustChat(t, s, "none").Ref()
	for _, bad := range []string{"", "two\nlines"} {
		_, err = a.AdoptAgent(ctx, ref, bad)
		wantCode(t, "AdoptAgent with agent "+bad, err, annals.EINVALID)
	}
	wrongTenant := ref
	wrongTenant.Owner.TenantID = "t2"
	_, err = a.AdoptAgent(ctx, wrongTenant, "codex")
	wantCode(t, "AdoptAgent with another tenant's ref", err, annals.ENOTFOUND)
	wrongIncarnation := ref
	wrongIncarnation.Incarnation++
	_, err = a.AdoptAgent(ctx, wrongIncarnation, "codex")
	wantCode(t, "AdoptAgent with another incarnation", err, annals.ENOTFOUND)
	if got := mustChat(t, s, "none"); got.AgentID != "" {
		t.Errorf("a refused AdoptAgent set agent %q", got.AgentID)
	}
	if _, err := a.AdoptAgent(ctx, ref, "codex"); err != nil {
		t.Fatalf("AdoptAgent: %v", err)
	}
	// Twice is not found: the ref read before names a chat without an agent, which is gone.
	_, err = a.AdoptAgent(ctx, ref, "gemini-cli")
	wantCode(t, "AdoptAgent again with the ref read before", err, annals.ENOTFOUND)
	if err := s.DeleteChat(ctx, refOf(t, s, "none")); err != nil {
		t.Fatal(err)
	}
	_, err = a.AdoptAgent(ctx, ref, "codex")
	wantCode(t, "AdoptAgent on a deleted chat", err, annals.ENOTFOUND)
}

// searchCount is how many chats (or entries) a search of text finds inside owner.
func searchCount(t *testing.T, s Store, owner annals.Owner, mode annals.SearchMode, text string) int {
	t.Helper()
	pq, err := query.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	f := annals.SearchFilter{Chat: annals.ChatFilter{Owner: owner}, Text: query.ToTextExpr(pq.Text), Limit: 10}
	if mode == annals.SearchEntriesMode {
		_, n, err := s.SearchEntries(t.Context(), f)
		if err != nil {
			t.Fatalf("SearchEntries(%q): %v", text, err)
		}
		return n
	}
	_, n, err := s.SearchChats(t.Context(), f)
	if err != nil {
		t.Fatalf("SearchChats(%q): %v", text, err)
	}
	return n
}

// testOutboxAgent: giving a chat its agent records one `agent` operation in the chat's lane,
// after its creation, carrying the chat and the agent; a refused one records nothing.
func testOutboxAgent(t *testing.T, s Store) {
	ctx := context.Background()
	o, _ := mustOutboxOn(t, s)
	mustCreateChat(t, s, NewChat("ag", "t1"))
	ref := mustChat(t, s, "ag").Ref()
	if _, err := adopterOf(t, s).AdoptAgent(ctx, ref, "codex"); err != nil {
		t.Fatalf("AdoptAgent: %v", err)
	}
	if _, err := adopterOf(t, s).AdoptAgent(ctx, ref, "codex"); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Fatalf("AdoptAgent again: %v, want not found", err)
	}
	ops := laneOps(t, o, "ag")
	if got := opKinds(ops); !sameSeq(got, []string{"chat", "agent"}) {
		t.Fatalf("ops = %v, want [chat agent]", got)
	}
	p, err := annals.DecodePayload(ops[1].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if p.Agent == nil || *p.Agent != (annals.AgentChange{ChatID: "ag", AgentID: "codex"}) || ops[1].LaneSeq != 2 {
		t.Errorf("agent op = %+v at lane seq %d, want {ag codex} at 2", p.Agent, ops[1].LaneSeq)
	}
}

// testReplicaAgent: a replicated agent change gives the remote's chat its agent and moves the
// head; the remote's owner folds follow.
func testReplicaAgent(t *testing.T, s ReplicaStore) {
	l := newReplicaLane("ra")
	l.apply(t, s, &annals.ReplicaChange{Capture: []annals.CaptureOp{{Chat: NewChat("ra", "t1")}}}, "chat")
	l.apply(t, s, replicaAppend("ra", TextEntry("e1", annals.KindUser, "quuxwidget")), "append")
	ref := refOf(t, s, "ra")
	l.apply(t, s, &annals.ReplicaChange{Agent: "codex", Ref: &ref}, "agent")
	if got := mustChat(t, s, "ra"); got.AgentID != "codex" {
		t.Errorf("the remote's chat has agent %q, want codex", got.AgentID)
	}
	codex := annals.Owner{TenantID: "t1", AgentID: "codex"}
	if n := searchCount(t, s, codex, annals.SearchEntriesMode, "quuxwidget"); n != 1 {
		t.Errorf("entry search under the new agent found %d, want 1", n)
	}
	stale := &annals.ReplicaChange{Agent: "gemini-cli", Ref: &ref}
	l.next(stale, "stale")
	if _, _, err := s.ApplyReplica(context.Background(), stale); annals.ErrorCode(err) != annals.ENOTFOUND {
		t.Errorf("a second agent change on the ref read before: %v, want not found", err)
	}
	if got := mustReplicaLane(t, s, "ra"); got.Seq != 3 {
		t.Errorf("head after a refused change = seq %d, want 3", got.Seq)
	}
}
