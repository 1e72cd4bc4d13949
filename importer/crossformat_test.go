package importer_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// counters count a source of each format independently of the importer
// (crossformat_count_test.go).
var counters = map[string]func(testing.TB, string) srcCount{
	"claude-code":     countClaudeCode,
	"qwen-code":       countQwenCode,
	"kimi-cli":        countKimi,
	"cursor":          countCursor,
	"copilot-cli":     countCopilot,
	"gemini-cli":      countGemini,
	"opencode":        countOpenCode,
	"chatgpt":         countChatGPT,
	"aider":           countAider,
	"codex":           countCodex,
	"annals":          countAnnalsExport,
	"claude-code-web": countClaudeCodeWeb,
	"amp":             countAmp,
	"continue":        countContinue,
	"openhands":       countOpenHands,
	"factory-droid":   countDroid,
	"messages":        countMessages,
	"llm":             countLLM,
	"cline":           countCline,
	"roo-code":        countCline,
	"kilo-code":       countCline,
	"copilot-chat":    countCopilotChat,
}

// TestEveryFixtureImportedTogetherKeepsWhatItsSourceHolds is the cross-format test: every
// fixture folder (importer/testdata and, when present, the public corpus) is imported at once
// into one store, formats detected. Per source: its messages by role equal what the source holds
// (counted above, without the importer), every call the source pairs with a result has it,
// no chat is empty, and a source of a known format gives no warning but for its unreadable
// records.
func TestEveryFixtureImportedTogetherKeepsWhatItsSourceHolds(t *testing.T) {
	roots := []string{"testdata"}
	if _, err := os.Stat(corpusDir); err == nil {
		roots = append(roots, corpusDir)
	} else {
		t.Logf("corpus %s not present: only importer/testdata is imported", corpusDir)
	}
	db := openDB(t)
	im := importertest.NewImporter(db, importer.Options{})
	cands, _, err := im.Resolve(roots, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := im.Import(context.Background(), cands)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import: %v %+v", err, rep.Errors)
	}
	warnings := map[string]int{}
	for _, w := range rep.WarningList {
		warnings[w.Path]++
	}
	srcs, err := db.FindImportSources(context.Background(), annals.ImportSourceFilter{})
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*annals.ImportSource{}
	owners := map[string]int{}
	for _, s := range srcs {
		byPath[s.Path] = s
		for _, id := range s.ChatIDs {
			owners[id]++
		}
	}
	var uncounted []string
	for _, cand := range cands {
		name := cand.Format.Name()
		src := byPath[cand.Path]
		if src == nil {
			t.Errorf("%s (%s): no import state", cand.Path, name)
			continue
		}
		got := storedCount(t, db, src.ChatIDs, cand.Path)
		if shared(owners, src.ChatIDs) {
			// Two fixtures name the same conversation (the corpus's two ChatGPT files are both
			// "fixture"): a later export of a conversation adds to it, as it should, so each
			// is compared on a store of its own.
			t.Logf("%s shares a chat id with another fixture; compared alone", cand.Path)
			alone := openDB(t)
			importertest.ImportAll(t, importertest.NewImporter(alone, importer.Options{Formats: []importer.Format{cand.Format}}), cand.Path)
			got = storedCount(t, alone, src.ChatIDs, cand.Path)
		}
		count := counters[name]
		if count == nil {
			uncounted = append(uncounted, name+" "+filepath.Base(cand.Path))
			continue
		}
		want := count(t, cand.Path)
		if want.Unreadable != warnings[cand.Path] {
			t.Errorf("%s (%s): %d warnings, want %d (its unreadable records)", cand.Path, name, warnings[cand.Path], want.Unreadable)
		}
		want.Unreadable = 0
		if got != want {
			t.Errorf("%s (%s): stored %+v, the source holds %+v", cand.Path, name, got, want)
		} else {
			t.Logf("%-14s %-60s %+v", name, filepath.Base(cand.Path), got)
		}
	}
	sort.Strings(uncounted)
	t.Logf("imported but not counted independently: %s", strings.Join(uncounted, ", "))
}

func shared(owners map[string]int, ids []string) bool {
	for _, id := range ids {
		if owners[id] > 1 {
			return true
		}
	}
	return false
}

// storedCount counts what the store holds for the chats of one source, and fails on an empty
// chat.
func storedCount(tb testing.TB, db interface {
	FindEntries(context.Context, annals.EntryFilter) ([]*annals.Entry, error)
}, chatIDs []string, path string) srcCount {
	tb.Helper()
	var c srcCount
	for _, id := range chatIDs {
		es, err := db.FindEntries(context.Background(), annals.EntryFilter{ChatID: id})
		if err != nil {
			tb.Fatal(err)
		}
		if len(es) == 0 {
			tb.Errorf("%s: chat %s is empty", path, id)
		}
		for _, e := range es {
			switch e.Kind {
			case annals.KindUser:
				c.User++
			case annals.KindAssistant:
				c.Assistant++
			case annals.KindTool:
				c.Tool++
				if e.Tool.Result != "" || (e.Tool.Outcome != "" && e.Tool.Outcome != annals.OutcomeCancelled) {
					c.Paired++
				}
			}
		}
	}
	return c
}
