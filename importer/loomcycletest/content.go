package loomcycletest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SessionID is the id of the i-th generated session.
func SessionID(i int) string { return fmt.Sprintf("sess_%04d", i) }

// RunID is the id of the t-th run of the i-th session.
func RunID(i, t int) string { return fmt.Sprintf("run_%04d_%02d", i, t) }

// SystemPrompt is every run's system segment.
const SystemPrompt = "You are a careful support agent. Look orders up before you answer."

// Secret is the reasoning signature every signed done event carries; it must never be imported.
const Secret = "SIGSECRET-do-not-import"

// RepeatedText is the user turn some runs send word for word, as people do.
const RepeatedText = "yes, go on"

var words = []string{"refund", "order", "parcel", "invoice", "courier", "warranty", "café", "naïve", "voucher", "ticket"}

var tools = []string{"lookup_order", "web_fetch", "Memory"}

func (g *gen) word() string { return words[g.r.Intn(len(words))] }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// session writes the sessions row of session i, with every shape of the human layer.
func (g *gen) session(i int) {
	var user, title, descr, tags, archived, summary, summaryAt any
	if i%4 != 3 {
		user = fmt.Sprintf("u_%d", i%7)
	}
	if i%5 != 4 {
		title = fmt.Sprintf("Chat %d about the %s", i, g.word())
	}
	if i%2 == 0 {
		descr = "Customer wrote twice; " + g.word() + " pending."
	}
	switch i % 3 {
	case 0:
		tags = `["project:jobember","team:ops"]`
	case 2:
		tags = `[]`
	}
	created := g.tick()
	if i%7 == 5 {
		archived = created + 86_400_000_000_123
	}
	if i%4 == 0 {
		summary, summaryAt = "The customer wants a refund; awaiting approval.", created+3_600_000_000_007
	}
	var pinned any = i%6 == 0
	if g.d == SQLite {
		pinned = map[bool]int{false: 0, true: 1}[i%6 == 0]
	}
	g.exec(`INSERT INTO sessions (id, tenant_id, agent, user_id, created_at, title, description, tags, pinned, archived_at, summary, summary_updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		SessionID(i), []string{"acme", "", "globex"}[i%3], []string{"support-triage", "researcher", "coder"}[i%3], user, g.stamp(created),
		title, descr, tags, pinned, archived, summary, summaryAt)
	g.st.Sessions++
}

// run writes the t-th run of session i and the events it records.
func (g *gen) run(i, t int) {
	sid, runID := SessionID(i), RunID(i, t)
	status := "completed"
	switch {
	case t == g.o.Turns-1 && i%5 == 1:
		status = "awaiting_input"
	case i%11 == 3:
		status = "failed"
	case i%13 == 4:
		status = "cancelled"
	}
	start := g.tick()
	g.exec(`INSERT INTO runs (id, session_id, status, started_at, model, provider, agent_id, user_id, tenant_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, runID, sid, status, g.stamp(start), "claude-sonnet-4", "anthropic",
		fmt.Sprintf("agent_%04d", i), fmt.Sprintf("u_%d", i%7), []string{"acme", "", "globex"}[i%3])
	g.st.Runs++
	g.userInput(i, t)
	g.sideEvents(i, t, status, true)
	var in, out int64
	for k := g.r.Intn(3); k > 0; k-- {
		a, b := g.modelCall(i, t, true)
		in, out = in+a, out+b
	}
	g.sideEvents(i, t, status, false)
	a, b := g.modelCall(i, t, false)
	in, out = in+a, out+b
	var end any
	if status != "awaiting_input" {
		end = g.stamp(g.tick())
	}
	g.flush() // the UPDATE below runs after this run's events are in
	g.exec(`UPDATE runs SET completed_at = ?, input_tokens = ?, output_tokens = ?, cost = ?, stop_reason = ? WHERE id = ?`,
		end, in, out, float64(in)*3e-6+float64(out)*15e-6, "end_turn", runID)
}

// userInput writes the segments that start a run: the system prompt, the user's text, and
// for some sessions an untrusted block or an image.
func (g *gen) userInput(i, t int) {
	text := fmt.Sprintf("Turn %d of session %d: where is my %s?", t, i, g.word())
	if t%3 == 2 {
		text = RepeatedText
	}
	user := []map[string]any{{"type": "trusted-text", "text": text}}
	texts := []string{text}
	if i%4 == 1 {
		page := "<p>Tracking: parcel " + g.word() + " in transit</p>"
		user = append(user, map[string]any{"type": "untrusted-block", "kind": "web_content", "text": page})
		texts = append(texts, page)
	}
	if i%9 == 2 && t == 0 {
		user = append(user, map[string]any{"type": "image", "text": "", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="})
	}
	segs := []map[string]any{
		{"role": "system", "content": []map[string]any{{"type": "trusted-text", "text": SystemPrompt, "cacheable": true}}},
		{"role": "user", "content": user},
	}
	g.event(SessionID(i), RunID(i, t), "user_input", mustJSON(segs))
	g.st.UserTexts[SessionID(i)] = append(g.st.UserTexts[SessionID(i)], strings.Join(texts, "\n\n"))
}

// rawJSON marks a string as JSON to embed as it is.
func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }
