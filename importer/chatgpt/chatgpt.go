// Package chatgpt reads the histories of ChatGPT exports for annals import (docs/IMPORT.md): one
// reader behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package chatgpt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ChatGPT reads a ChatGPT data export's conversations.json: an array of conversation objects
// (a single object is accepted too). A conversation is a tree of message nodes ("mapping");
// current_node is the leaf the person last saw.
//
// The path from the root to current_node is the chat "chatgpt:<conversation id>". Every other
// branch (an edited prompt, a regenerated answer) is kept as a chat of its own,
// "chatgpt:<conversation id>/branch-<leaf node>", holding the messages after the fork, with the
// attributes parent=<the main chat> and branch_from=<the node it forks from>.
type ChatGPT struct{}

func (ChatGPT) Name() string { return "chatgpt" }

func (ChatGPT) DefaultPaths(home string) []string {
	// An export is a zip the person unpacks, usually in Downloads.
	return []string{
		filepath.Join(home, "Downloads", "conversations.json"),
		filepath.Join(home, "Downloads", "*", "conversations.json"),
	}
}

func (ChatGPT) Detect(path string, head []byte) bool {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	return bytes.Contains(head, []byte(`"mapping"`)) && (bytes.Contains(head, []byte(`"current_node"`)) || bytes.Contains(head, []byte(`"create_time"`)))
}

type cgConversation struct {
	ID             string             `json:"id"`
	ConversationID string             `json:"conversation_id"`
	Title          string             `json:"title"`
	CreateTime     any                `json:"create_time"`
	UpdateTime     any                `json:"update_time"`
	CurrentNode    string             `json:"current_node"`
	Mapping        map[string]*cgNode `json:"mapping"`
	DefaultModel   string             `json:"default_model_slug"`
	GizmoID        string             `json:"gizmo_id"`
	IsArchived     bool               `json:"is_archived"`
}

type cgNode struct {
	ID       string     `json:"id"`
	Message  *cgMessage `json:"message"`
	Parent   string     `json:"parent"`
	Children []string   `json:"children"`
}

type cgMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime any             `json:"create_time"`
	UpdateTime any             `json:"update_time"`
	Content    json.RawMessage `json:"content"`
	Status     string          `json:"status"`
	Recipient  string          `json:"recipient"`
	Channel    string          `json:"channel"`
	Metadata   struct {
		ModelSlug string `json:"model_slug"`
		Hidden    bool   `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

type cgContent struct {
	ContentType string            `json:"content_type"`
	Parts       []json.RawMessage `json:"parts"`
	Text        string            `json:"text"`
	Language    string            `json:"language"`
	Content     string            `json:"content"`
	Result      string            `json:"result"`
	Thoughts    []struct {
		Summary string `json:"summary"`
		Content string `json:"content"`
	} `json:"thoughts"`
}

func (ChatGPT) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	r, err := src.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 256<<10)
	dec := json.NewDecoder(br)
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("not a ChatGPT export: %w", err)
	}
	switch tok {
	case json.Delim('['):
		// An export: conversations one at a time, so a large file is never held whole.
		for i := 1; dec.More(); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			var c cgConversation
			if err := dec.Decode(&c); err != nil {
				return fmt.Errorf("conversation %d: %w", i, err)
			}
			if err := cgEmit(&c, out); err != nil {
				return err
			}
		}
		return nil
	case json.Delim('{'):
		// One conversation object: decode the rest of it by reading it again whole.
		rc, err := src.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		var c cgConversation
		if err := json.NewDecoder(rc).Decode(&c); err != nil {
			return fmt.Errorf("not a ChatGPT conversation: %w", err)
		}
		return cgEmit(&c, out)
	}
	return fmt.Errorf("not a ChatGPT export: want an array of conversations or one conversation object")
}

func cgEmit(c *cgConversation, out reader.Output) error {
	convID := c.ID
	if convID == "" {
		convID = c.ConversationID
	}
	if convID == "" || len(c.Mapping) == 0 {
		out.Warnf(0, "a conversation without an id or messages was skipped")
		return nil
	}
	chatID := reader.ChatID("chatgpt", convID)
	for id, n := range c.Mapping {
		if n.ID == "" {
			n.ID = id
		}
	}
	// The main path: from current_node up to the root. Without a current node, the newest leaf.
	leaf := c.CurrentNode
	if c.Mapping[leaf] == nil {
		leaf = cgNewestLeaf(c)
	}
	main := cgPath(c, leaf)
	onMain := map[string]bool{}
	for _, n := range main {
		onMain[n.ID] = true
	}
	model := c.DefaultModel
	for _, n := range main {
		if model == "" && n.Message != nil && n.Message.Metadata.ModelSlug != "" {
			model = n.Message.Metadata.ModelSlug
		}
	}
	attrs := annals.Attributes{"source": "chatgpt"}
	if model != "" {
		attrs["model"] = model
	}
	if c.GizmoID != "" {
		attrs["gizmo_id"] = c.GizmoID
	}
	created := cgCreated(c, main)
	chat := &annals.Chat{ID: chatID, Attributes: attrs, CreatedAt: created, Title: reader.Truncated(reader.ValidText(c.Title), annals.MaxTitleBytes)}
	if err := out.Emit(annals.CaptureOp{Chat: chat}); err != nil {
		return err
	}
	if err := cgEntries(chatID, main, created, out); err != nil {
		return err
	}
	return cgBranches(c, chatID, model, cgBranchTitle(c.Title), created, onMain, out)
}

// cgBranchTitle is the title of a conversation's other branches: the conversation's, marked as
// a branch ("" when the conversation has none; the branch's first prompt then names it).
func cgBranchTitle(title string) string {
	t := strings.TrimSpace(reader.ValidText(title))
	if t == "" {
		return ""
	}
	return reader.Truncated(t+" (other branch)", annals.MaxTitleBytes)
}

// cgBranches emits the other branches: every leaf off the main path, from the first node not
// on it, as a chat whose parent is the main one.
func cgBranches(c *cgConversation, chatID, model, title string, created time.Time, onMain map[string]bool, out reader.Output) error {
	var leaves []string
	for id, n := range c.Mapping {
		if len(n.Children) == 0 && !onMain[id] {
			leaves = append(leaves, id)
		}
	}
	sort.Strings(leaves)
	for _, l := range leaves {
		path := cgPath(c, l)
		fork := 0
		for fork < len(path) && onMain[path[fork].ID] {
			fork++
		}
		branch := path[fork:]
		if !cgHasMessage(branch) {
			continue
		}
		forkFrom := ""
		if fork > 0 {
			forkFrom = path[fork-1].ID
		}
		bid := reader.SafeID(chatID+"/branch-"+l, annals.MaxIDBytes)
		battrs := annals.Attributes{"source": "chatgpt", "parent": chatID}
		if forkFrom != "" {
			battrs["branch_from"] = forkFrom
		}
		if model != "" {
			battrs["model"] = model
		}
		if err := cgBranch(bid, battrs, title, branch, created, out); err != nil {
			return err
		}
	}
	return nil
}

// cgBranch emits one branch. A branch is kept only if it holds something (a regenerated
// answer that came back empty does not make a chat).
func cgBranch(bid string, battrs annals.Attributes, title string, branch []*cgNode, created time.Time, out reader.Output) error {
	var buf reader.OpBuffer
	if err := cgEntries(bid, branch, created, &buf); err != nil {
		return err
	}
	if len(buf.Ops) == 0 {
		return nil
	}
	if err := out.Emit(annals.CaptureOp{Chat: &annals.Chat{ID: bid, Attributes: battrs, Title: title, CreatedAt: cgFirstTime(branch, created)}}); err != nil {
		return err
	}
	for _, op := range buf.Ops {
		if err := out.Emit(op); err != nil {
			return err
		}
	}
	return nil
}

// cgCreated is when a conversation began: its create_time, else its first message's time,
// else its update_time. Without any of them the store stamps the import time.
func cgCreated(c *cgConversation, path []*cgNode) time.Time {
	if t := reader.ParseTime(c.CreateTime); !t.IsZero() {
		return t
	}
	if t := cgFirstTime(path, time.Time{}); !t.IsZero() {
		return t
	}
	return reader.ParseTime(c.UpdateTime)
}

// cgTime is a message's own time: when it was created, or (for the messages an export leaves
// without one) when it was last updated.
func cgTime(m *cgMessage) time.Time {
	if t := reader.ParseTime(m.CreateTime); !t.IsZero() {
		return t
	}
	return reader.ParseTime(m.UpdateTime)
}

func cgHasMessage(path []*cgNode) bool {
	for _, n := range path {
		if n.Message != nil {
			return true
		}
	}
	return false
}

func cgFirstTime(path []*cgNode, def time.Time) time.Time {
	for _, n := range path {
		if n.Message != nil {
			if t := cgTime(n.Message); !t.IsZero() {
				return t
			}
		}
	}
	return def
}

// cgPath returns the nodes from the root to leaf. A cycle in a damaged file ends the walk.
func cgPath(c *cgConversation, leaf string) []*cgNode {
	var rev []*cgNode
	seen := map[string]bool{}
	for id := leaf; id != "" && !seen[id]; {
		n := c.Mapping[id]
		if n == nil {
			break
		}
		seen[id] = true
		rev = append(rev, n)
		id = n.Parent
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

func cgNewestLeaf(c *cgConversation) string {
	best, bestT := "", time.Time{}
	for id, n := range c.Mapping {
		if len(n.Children) > 0 {
			continue
		}
		t := time.Time{}
		if n.Message != nil {
			t = reader.ParseTime(n.Message.CreateTime)
		}
		if best == "" || t.After(bestT) || (t.Equal(bestT) && id > best) {
			best, bestT = id, t
		}
	}
	return best
}

// cgEntries maps a path of nodes to entries. An assistant message addressed to a tool
// (recipient other than "all") is a tool call; the tool's next message is its result.
func cgEntries(chatID string, path []*cgNode, start time.Time, out reader.Output) error {
	var q reader.OpQueue
	last := start
	var held *cgNode // a recap waiting for the reply it ends the reasoning of
	for i, n := range path {
		m := n.Message
		if m == nil || (cgIsRecap(n) && i > 0 && cgIsThoughts(path[i-1])) {
			continue // a recap after thoughts is their entry's (cgEntry)
		}
		if cgIsRecap(n) {
			held = n // after tool calls: the next reply's
			continue
		}
		var recap *cgNode
		switch {
		case cgIsThoughts(n) && i+1 < len(path) && cgIsRecap(path[i+1]):
			recap = path[i+1]
		case held != nil && m.Author.Role == "assistant" && cgContentType(n) != "thoughts" && (m.Recipient == "" || m.Recipient == "all"):
			recap, held = held, nil
		case held != nil && m.Author.Role == "user":
			if err := cgHeldRecap(&q, chatID, held, last, out); err != nil {
				return err
			}
			held = nil
		}
		ts := cgTime(m)
		if ts.IsZero() {
			ts = last
		} else {
			last = ts
		}
		if !cgEntry(&q, chatID, n, recap, ts) {
			continue
		}
		if err := q.Flush(out); err != nil {
			return err
		}
	}
	if held != nil {
		if err := cgHeldRecap(&q, chatID, held, last, out); err != nil {
			return err
		}
	}
	return q.FlushAll(out)
}

// cgHeldRecap emits a recap no reply followed as the reasoning of an entry of its own.
func cgHeldRecap(q *reader.OpQueue, chatID string, n *cgNode, last time.Time, out reader.Output) error {
	ts := cgTime(n.Message)
	if ts.IsZero() {
		ts = last
	}
	if !cgEntry(q, chatID, n, nil, ts) {
		return nil
	}
	return q.Flush(out)
}

// cgEntry queues the entry of node n, or fills in the call a tool message answers; it
// returns false when the node holds nothing to keep.
func cgEntry(q *reader.OpQueue, chatID string, n, recap *cgNode, ts time.Time) bool {
	m := n.Message
	var ct cgContent
	_ = json.Unmarshal(m.Content, &ct)
	text, attachments := cgText(&ct)
	id := reader.EntryID(n.ID, -1)
	src := []string{reader.SafeID(n.ID, annals.MaxIDBytes)}
	meta := cgMeta(m, &ct, attachments)
	role := m.Author.Role
	switch {
	case role == "assistant" && m.Recipient != "" && m.Recipient != "all":
		args := cgArgs(&ct, text)
		q.PushCall(chatID, "to:"+m.Recipient, &annals.Entry{ID: id, Kind: annals.KindTool, Time: ts, SourceIDs: src,
			Tool: &annals.ToolCall{Name: reader.SafeID(m.Recipient, annals.MaxIDBytes), Arguments: args}, Metadata: reader.Metadata(meta)})
	case role == "tool":
		cgToolResult(q, chatID, m, &ct, text, attachments, &annals.Entry{ID: id, Kind: annals.KindTool, Time: ts, SourceIDs: src}, meta)
	case role == "assistant" && ct.ContentType == "thoughts":
		var thoughts []string
		for _, t := range ct.Thoughts {
			thoughts = append(thoughts, strings.TrimSpace(t.Summary+"\n"+t.Content))
		}
		if len(thoughts) == 0 {
			thoughts = append(thoughts, text) // the thoughts' text in parts
		}
		r := strings.Join(reader.DropBlank(thoughts), "\n\n")
		if recap != nil {
			// "Thought for 47s": the recap of these thoughts, ending their reasoning.
			if rt := cgRecapText(recap); rt != "" {
				r = strings.TrimSpace(r + "\n\n" + rt)
				meta["reasoning_recap"] = rt
			}
			src = append(src, reader.SafeID(recap.ID, annals.MaxIDBytes))
		}
		if r == "" {
			return false
		}
		q.PushEntry(chatID, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, SourceIDs: src, Reasoning: reader.ValidText(r), Metadata: reader.Metadata(meta)})
	case role == "assistant" && ct.ContentType == "reasoning_recap":
		// A recap whose thoughts were not kept: the reasoning of an entry of its own.
		r := cgRecapText(n)
		if r == "" {
			return false
		}
		meta["reasoning_recap"] = r
		q.PushEntry(chatID, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, SourceIDs: src, Reasoning: reader.ValidText(r), Metadata: reader.Metadata(meta)})
	case role == "assistant":
		reasoning := ""
		if recap != nil {
			// The recap of the reasoning (across tool calls) that led to this reply.
			if reasoning = cgRecapText(recap); reasoning != "" {
				meta["reasoning_recap"] = reasoning
			}
			src = append(src, reader.SafeID(recap.ID, annals.MaxIDBytes))
		}
		if strings.TrimSpace(text) == "" && attachments == 0 && reasoning == "" {
			return false
		}
		q.PushEntry(chatID, &annals.Entry{ID: id, Kind: annals.KindAssistant, Time: ts, SourceIDs: src, Text: reader.ValidText(text), Reasoning: reader.ValidText(reasoning), Metadata: reader.Metadata(meta)})
	case role == "user":
		if strings.TrimSpace(text) == "" && attachments == 0 {
			return false
		}
		q.ReleaseAll()
		kind := annals.KindUser
		if m.Metadata.Hidden {
			kind = annals.KindSystem
			meta["hidden"] = true
		}
		q.PushEntry(chatID, &annals.Entry{ID: id, Kind: kind, Time: ts, SourceIDs: src, Text: reader.ValidText(text), Metadata: reader.Metadata(meta)})
	default: // system and anything else
		if strings.TrimSpace(text) == "" {
			return false
		}
		meta["role"] = role
		q.PushEntry(chatID, &annals.Entry{ID: id, Kind: annals.KindSystem, Time: ts, SourceIDs: src, Text: reader.ValidText(text), Metadata: reader.Metadata(meta)})
	}
	return true
}

// cgMeta is what an entry keeps of a message besides its text.
func cgMeta(m *cgMessage, ct *cgContent, attachments int) map[string]any {
	meta := map[string]any{}
	if m.Metadata.ModelSlug != "" {
		meta["model"] = m.Metadata.ModelSlug
	}
	if attachments > 0 {
		meta["attachments"] = attachments
	}
	if ct.ContentType != "" && ct.ContentType != "text" && ct.ContentType != "multimodal_text" {
		meta["content_type"] = ct.ContentType
	}
	if m.Channel != "" {
		meta["channel"] = m.Channel
	}
	return meta
}

// cgToolResult fills in the call a tool message answers (addressed by the tool's name), or
// queues e as an orphan result.
func cgToolResult(q *reader.OpQueue, chatID string, m *cgMessage, ct *cgContent, text string, attachments int, e *annals.Entry, meta map[string]any) {
	name := m.Author.Name
	outcome := annals.OutcomeSucceeded
	if ct.ContentType == "system_error" || m.Status == "failed" {
		outcome = annals.OutcomeFailed
	}
	src := e.SourceIDs
	if q.Resolve("to:"+name, func(e *annals.Entry) {
		e.Tool.Result = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/2)
		e.Tool.Outcome = outcome
		e.SourceIDs = reader.AddSourceIDs(e.SourceIDs, src...)
		if attachments > 0 {
			e.Metadata = reader.JoinMeta(e.Metadata, reader.Metadata(map[string]any{"result_attachments": attachments}))
		}
	}) {
		return
	}
	if name == "" {
		name = "tool"
	}
	meta["orphan_result"] = true
	e.Tool = &annals.ToolCall{Name: reader.SafeID(name, annals.MaxIDBytes), Result: reader.ValidText(text), Outcome: outcome}
	e.Metadata = reader.Metadata(meta)
	q.PushEntry(chatID, e)
}

// cgText reads a message's text: its string parts, or text/result/content fields, counting
// non-text parts (images, files) as attachments.
func cgText(ct *cgContent) (string, int) {
	var texts []string
	attachments := 0
	for _, p := range ct.Parts {
		p = bytes.TrimSpace(p)
		if len(p) == 0 {
			continue
		}
		if p[0] == '"' {
			var s string
			_ = json.Unmarshal(p, &s)
			texts = append(texts, s)
			continue
		}
		var obj struct {
			ContentType string `json:"content_type"`
			Text        string `json:"text"`
		}
		if json.Unmarshal(p, &obj) == nil && obj.Text != "" {
			texts = append(texts, obj.Text)
			continue
		}
		attachments++
		texts = append(texts, "[attachment]")
	}
	for _, s := range []string{ct.Text, ct.Result, ct.Content} {
		if s != "" {
			texts = append(texts, s)
		}
	}
	return strings.Join(reader.DropBlank(texts), "\n"), attachments
}

func cgArgs(ct *cgContent, text string) json.RawMessage {
	if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	if ct.Language != "" {
		b, err := json.Marshal(map[string]string{"language": ct.Language, "code": text})
		if err == nil {
			return b
		}
	}
	if text == "" {
		return nil
	}
	return reader.JSONString(text)
}

// cgIsThoughts and cgIsRecap tell an assistant's thoughts node and its reasoning recap.
func cgIsThoughts(n *cgNode) bool { return cgContentType(n) == "thoughts" }
func cgIsRecap(n *cgNode) bool    { return cgContentType(n) == "reasoning_recap" }

func cgContentType(n *cgNode) string {
	if n == nil || n.Message == nil || n.Message.Author.Role != "assistant" {
		return ""
	}
	var ct struct {
		ContentType string `json:"content_type"`
	}
	_ = json.Unmarshal(n.Message.Content, &ct)
	return ct.ContentType
}

// cgRecapText is a reasoning recap's text ("Thought for 47s").
func cgRecapText(n *cgNode) string {
	var ct cgContent
	_ = json.Unmarshal(n.Message.Content, &ct)
	text, _ := cgText(&ct)
	return strings.TrimSpace(text)
}
