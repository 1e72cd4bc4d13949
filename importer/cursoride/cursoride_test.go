package cursoride_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// cursorStateDB writes a globalStorage/state.vscdb of the layout the Cursor readers document
// (e.g. michaeldhood/chatrxiv docs/cursor/storage-reference.md, AgentOrchestrator/AgentBase
// docs/CURSOR.md): ItemTable and cursorDiskKV(key, value), composerData:<id> with
// fullConversationHeadersOnly, bubbleId:<composer>:<bubble> with type 1 (user) or 2 (assistant),
// text, thinking and toolFormerData.
func cursorStateDB(t testing.TB, path string) {
	db := importertest.SrcDB(t, path, `CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`,
		`CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`)
	importertest.SrcExec(t, db, `INSERT INTO ItemTable VALUES ('cursorAuth/cachedEmail', 'u@example.com')`)
	kv := map[string]string{
		"composerData:cmp-1": `{"_v":10,"composerId":"cmp-1","name":"Fix the osprey parser","createdAt":1768000000000,"lastUpdatedAt":1768000090000,
			"fullConversationHeadersOnly":[{"bubbleId":"b1","type":1},{"bubbleId":"b2","type":2},{"bubbleId":"b3","type":2}]}`,
		"bubbleId:cmp-1:b1":      `{"_v":3,"type":1,"bubbleId":"b1","text":"Why does the osprey parser panic?"}`,
		"bubbleId:cmp-1:b2":      `{"_v":3,"type":2,"bubbleId":"b2","text":"","thinking":{"text":"Probably a nil map."},"toolFormerData":{"tool":5,"name":"read_file","toolCallId":"call_o1","rawArgs":"{\"target_file\":\"osprey.go\"}","result":"{\"contents\":\"var m map[string]int\"}","status":"completed"}}`,
		"bubbleId:cmp-1:b3":      `{"_v":3,"type":2,"bubbleId":"b3","text":"The map m is never made; use make(map[string]int)."}`,
		"composerData:cmp-empty": `{"_v":10,"composerId":"cmp-empty","name":"","createdAt":1768000100000,"fullConversationHeadersOnly":[]}`,
	}
	for k, v := range kv {
		importertest.SrcExec(t, db, `INSERT INTO cursorDiskKV VALUES (?, ?)`, k, []byte(v))
	}
}

func TestCursorEditorConversationsAreStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Cursor", "User", "globalStorage", "state.vscdb")
	importertest.WriteFile(t, path, nil)
	cursorStateDB(t, path)
	var claims []string
	for _, f := range importer.Formats() {
		if f.Detect(path, importertest.Head(t, path)) {
			claims = append(claims, f.Name())
		}
	}
	if strings.Join(claims, ",") != "cursor-ide" {
		t.Fatalf("state.vscdb claimed by %v, want cursor-ide only", claims)
	}
	c, es, _ := importertest.StoredChat(t, openDB(t), "cursor-ide:cmp-1", []string{"cursor-ide"}, path)
	if c.Title != "Fix the osprey parser" || c.CreatedAt.UnixMilli() != 1768000000000 {
		t.Errorf("chat %q %v", c.Title, c.CreatedAt)
	}
	if got := importertest.Kinds(es); got[annals.KindUser] != 1 || got[annals.KindAssistant] != 2 || got[annals.KindTool] != 1 {
		t.Errorf("entries by kind %v", got)
	}
	for _, e := range es {
		if e.Tool != nil && (e.Tool.Name != "read_file" || e.Tool.Outcome != annals.OutcomeSucceeded || !strings.Contains(e.Tool.Result, "map[string]int")) {
			t.Errorf("tool %+v", e.Tool)
		}
	}
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importertest.ImporterOptionsFor(t, "cursor-ide")), path)
	if _, err := db.FindChatByID(t.Context(), "cursor-ide:cmp-empty"); err == nil {
		t.Error("a conversation without messages made a chat")
	}
}
