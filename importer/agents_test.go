package importer_test

import (
	"context"
	"slices"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
	"github.com/annals-dev/annals/sqlite"
)

// agentsOf returns the ids of the local tenant's chats of agent, sorted.
func agentsOf(t *testing.T, db *sqlite.DB, agent string) []string {
	t.Helper()
	chats, _, err := db.FindChats(context.Background(), annals.ChatFilter{Owner: annals.Owner{TenantID: "local"}, Agent: &agent})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range chats {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestImportedChatsAreTheirToolsAgents(t *testing.T) {
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{Formats: importertest.FormatsNamed(t, "claude-code", "codex")})
	importertest.ImportAll(t, im, "testdata/codex", "testdata/claude-code/agents")
	codex := agentsOf(t, db, "codex")
	if len(codex) != 3 || !slices.Contains(codex, "codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000") {
		t.Errorf("codex chats = %v, want the three rollouts and streams of testdata/codex", codex)
	}
	if got := agentsOf(t, db, "claude-code"); !slices.Contains(got, "claude-code:sess-par") || !slices.Contains(got, "claude-code:sess-inline") {
		t.Errorf("claude-code chats = %v, want the main sessions", got)
	}
	// A sub-agent whose meta file names its kind is that kind of the tool's agent.
	if got := agentsOf(t, db, "claude-code/Explore"); !slices.Equal(got, []string{"claude-code:sess-par/agent-a7748a49cbfabf1b6"}) {
		t.Errorf("claude-code/Explore chats = %v", got)
	}
	// An import under a key with an agent makes every chat that agent's.
	db2 := openDB(t)
	im2 := importertest.NewImporter(db2, importer.Options{Formats: importertest.FormatsNamed(t, "codex"), AgentID: "ci-bot"})
	importertest.ImportAll(t, im2, "testdata/codex")
	if got := agentsOf(t, db2, "ci-bot"); len(got) != 3 {
		t.Errorf("chats of the key's agent = %v, want all three", got)
	}
}

// agentless refuses a chat with an agent, as the service does for a member key with neither
// a user nor an agent.
type agentless struct{ *sqlite.DB }

func (s agentless) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	for _, op := range ops {
		if op.Chat != nil && op.Chat.AgentID != "" {
			return nil, annals.Errorf(annals.EFORBIDDEN, "a member key without a user or agent creates only chats without them")
		}
	}
	return s.DB.Capture(ctx, ops)
}

func TestAKeyThatMayNotNameAgentsStillImports(t *testing.T) {
	db := openDB(t)
	im := importer.New(agentless{db}, importer.Options{Formats: importertest.FormatsNamed(t, "codex"), Titles: importertest.Titles{DB: db}})
	rep := importertest.ImportAll(t, im, "testdata/codex")
	if tot := rep.Total(); tot.Chats != 3 || tot.Entries == 0 || tot.Warnings == 0 {
		t.Fatalf("report %+v, want three chats with their entries, and the refusal reported", tot)
	}
	if got := agentsOf(t, db, ""); len(got) != 3 {
		t.Errorf("chats without an agent = %v, want all three", got)
	}
}

// TestImportingAgainGivesChatsImportedWithoutAnAgentTheirAgent: chats an import stored without
// an agent (as imports did before imported chats had agents) get their tool's agent, sub-agents
// their kind, when the same unchanged files are imported again; a chat with the format's source
// attribute that no import produced keeps none; the next import has nothing left to do.
func TestImportingAgainGivesChatsImportedWithoutAnAgentTheirAgent(t *testing.T) {
	db := openDB(t)
	formats := importertest.FormatsNamed(t, "claude-code", "codex")
	paths := []string{"testdata/codex", "testdata/claude-code/agents"}
	old := importer.New(agentless{db}, importer.Options{Formats: formats, Titles: importertest.Titles{DB: db}})
	first := importertest.ImportAll(t, old, paths...)
	byHand := &annals.Chat{ID: "by-hand", TenantID: "local", Attributes: annals.Attributes{"source": "codex"}}
	if _, err := annals.CreateChat(context.Background(), db, byHand); err != nil {
		t.Fatal(err)
	}
	before := agentsOf(t, db, "")
	if len(before) != first.Total().Chats+1 {
		t.Fatalf("chats without an agent = %d, want the %d imported and the one by hand", len(before), first.Total().Chats)
	}

	rep := importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{Formats: formats, Agents: db}), paths...)
	if tot := rep.Total(); tot.Chats != 0 || tot.Entries != 0 || rep.Agents != first.Total().Chats {
		t.Errorf("import again: %d chats, %d entries, %d agents given; want 0, 0 and %d", tot.Chats, tot.Entries, rep.Agents, first.Total().Chats)
	}
	if got := agentsOf(t, db, "codex"); len(got) != 3 {
		t.Errorf("codex chats = %v, want the three of testdata/codex", got)
	}
	if got := agentsOf(t, db, "claude-code/Explore"); !slices.Equal(got, []string{"claude-code:sess-par/agent-a7748a49cbfabf1b6"}) {
		t.Errorf("claude-code/Explore chats = %v, want the sub-agent its meta file names", got)
	}
	if got := agentsOf(t, db, ""); !slices.Equal(got, []string{"by-hand"}) {
		t.Errorf("chats without an agent = %v, want only the one no import produced", got)
	}
	again := importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{Formats: formats, Agents: db}), paths...)
	if again.Agents != 0 {
		t.Errorf("a third import gave %d agents, want none left", again.Agents)
	}
	// Without the store's adopter (an import through a server) the chats are left as they are.
	db2 := openDB(t)
	importertest.ImportAll(t, importer.New(agentless{db2}, importer.Options{Formats: formats, Titles: importertest.Titles{DB: db2}}), paths...)
	if rep := importertest.ImportAll(t, importertest.NewImporter(db2, importer.Options{Formats: formats}), paths...); rep.Agents != 0 {
		t.Errorf("an import without Options.Agents gave %d agents", rep.Agents)
	}
}
