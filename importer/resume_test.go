package importer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/importer/importertest"
)

// TestImportedChatsCarryTheirToolsResumeCommand imports the fixtures of every format whose
// tool can continue a saved session and checks the stored resume attributes.
func TestImportedChatsCarryTheirToolsResumeCommand(t *testing.T) {
	db := openDB(t)
	importertest.ImportAll(t, importertest.NewImporter(db, importer.Options{}), "testdata")
	ctx := context.Background()
	for id, want := range map[string]string{
		"claude-code:sess-main":                                        "claude --resume sess-main",
		"codex:0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000":                   "codex resume 0197aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
		"codex:0199a213-81c0-7800-8aa1-bbab2a035a53/exec":              "codex resume 0199a213-81c0-7800-8aa1-bbab2a035a53",
		"gemini-cli:gem-legacy-1":                                      "gemini --resume gem-legacy-1",
		"copilot-cli:0f1e2d3c-aaaa-4bbb-8ccc-123456789abc":             "copilot --resume=0f1e2d3c-aaaa-4bbb-8ccc-123456789abc",
		"opencode:ses_main":                                            "opencode --session ses_main",
		"qwen-code:7b1e0c9a-5d2f-4c8e-9a41-3f6d2b8e1c07":               "qwen --resume 7b1e0c9a-5d2f-4c8e-9a41-3f6d2b8e1c07",
		"amp:T-019b9d03-62e3-772f-9780-3e637f90eaec":                   "amp threads continue T-019b9d03-62e3-772f-9780-3e637f90eaec",
		"factory-droid:6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a":           "droid --resume 6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a",
		"hermes:cron_1f5dc1b5d0f2_20260421_083011":                     "hermes --resume cron_1f5dc1b5d0f2_20260421_083011",
		"gptme:2025-03-01-ten-happy-otters":                            "gptme --name 2025-03-01-ten-happy-otters",
		"pi:ffae836b-9420-4060-ac13-7745215f90ff":                      "pi --session ffae836b-9420-4060-ac13-7745215f90ff",
		"mistral-vibe:3f2a9c1e-7b4d-4e8a-a1c2-d3e4f5a6b7c8":            "vibe --resume 3f2a9c1e-7b4d-4e8a-a1c2-d3e4f5a6b7c8",
		"kimi-cli:2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50":                "kimi --session 2d5e8f0a-1b3c-4d5e-8f9a-0b1c2d3e4f50",
		"iflow:session-041101e6-2a7f-4dfd-90b0-57888a353f6a":           "",
		"grok:019f179d-0888-76b1-9325-5a91ace595df":                    "",
		"cline-session:1784094124598_rruoq":                            "cline --id 1784094124598_rruoq",
		"cline-session:1784094124598_rruoq__agent_1783376880100_k3x9q": "",
		// Sub-agents, side chains and branches are not sessions their tool resumes.
		"claude-code:sess-main/agent-a1b2":   "",
		"claude-code:sess-main/sidechain-s1": "",
		"opencode:ses_child":                 "",
		"chatgpt:cg-conv-1":                  "",
	} {
		c, err := db.FindChatByID(ctx, id)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if got := c.Attributes[importer.ResumeCommandAttr]; got != want {
			t.Errorf("%s resume_command %q, want %q", id, got, want)
		}
	}
	// An Aider chat's id holds a hash of its project folder, which depends on where the
	// repository is checked out: find it by the rest of the id.
	chats, _, err := db.FindChats(ctx, annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, IDPrefix: "aider:", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	aider := 0
	for _, c := range chats {
		if strings.HasSuffix(c.ID, ":2025-03-10T14-00-00") {
			aider++
			if got := c.Attributes[importer.ResumeCommandAttr]; got != "aider --restore-chat-history" {
				t.Errorf("%s resume_command %q", c.ID, got)
			}
		}
	}
	if aider != 1 {
		t.Errorf("want one Aider chat of 2025-03-10 14:00, found %d among %d", aider, len(chats))
	}
	c, err := db.FindChatByID(ctx, "claude-code:sess-main")
	if err != nil {
		t.Fatal(err)
	}
	if c.Attributes[importer.SessionIDAttr] != "sess-main" || c.Attributes["cwd"] != "/home/dev/zoo" {
		t.Errorf("claude-code:sess-main attributes %v, want session_id and cwd", c.Attributes)
	}
}
