// Package tau reads the histories of Tau for annals import (docs/IMPORT.md): one reader behind the
// importer/reader contracts (detect, default locations, read), listed in importer.Formats.
package tau

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// Tau imports Tau's local history, ~/.config/tau/history.sqlite (reference 002): each session
// with its immutable creation attributes and its active flat transcript (user content,
// assistant text segments, completed tool calls with name, arguments, result and outcome).
// Tau's schema is not published; the importer reads the one docs/IMPORT.md describes, inferred
// from the documentation, and accepts the usual alternative column names:
//
//	history_sessions(id, created_at, attributes?)
//	history_attributes(session_id, key, value)   -- when attributes are not a JSON column
//	history_entries(session_id, seq, id, source_id, kind, text, tool_name, arguments, result,
//	                outcome, created_at)
//
// Tau's history is already what annals's capture model is (annals grew out of it), so the
// mapping is one to one: a session is a chat, an entry an entry with the same id, source id and
// order. Tau's own source attribute (tui, telegram, ...) is kept as tau_source, since annals's
// source names the importer.
type Tau struct{}

func (Tau) Name() string { return "tau" }

func (Tau) Detect(path string, head []byte) bool {
	return reader.DetectSQLiteTables(path, head, "history_sessions", "history_entries")
}

func (Tau) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".config", "tau", "history.sqlite")}
}

func (f Tau) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	db, err := reader.OpenSourceDB(ctx, src.Path)
	if err != nil {
		return fmt.Errorf("tau: %w", err)
	}
	defer db.Close()
	tables, err := reader.SQLiteTables(ctx, db)
	if err != nil {
		return fmt.Errorf("tau: %w", err)
	}
	sc, err := reader.TableColumns(ctx, db, "history_sessions")
	if err != nil {
		return fmt.Errorf("tau: %w", err)
	}
	ec, err := reader.TableColumns(ctx, db, "history_entries")
	if err != nil {
		return fmt.Errorf("tau: %w", err)
	}
	sID := reader.PickColumn(sc, "id", "session_id")
	sCreated := reader.PickColumn(sc, "created_at", "started_at", "created")
	sAttrs := reader.PickColumn(sc, "attributes", "attributes_json", "attrs")
	eSession := reader.PickColumn(ec, "session_id", "session")
	c := tauEntryColumns(ec)
	if sID == "" || eSession == "" || c.kind == "" {
		return fmt.Errorf("tau: %s: history_sessions(id) and history_entries(session_id, kind) are required (see docs/IMPORT.md)", src.Path)
	}
	kv, err := tauAttributeTable(ctx, db, tables)
	if err != nil {
		return err
	}

	order := "rowid"
	if sCreated != "" {
		order = `"` + sCreated + `", rowid`
	}
	sessions, err := reader.QueryMaps(ctx, db, `SELECT * FROM history_sessions ORDER BY `+order)
	if err != nil {
		return fmt.Errorf("tau: reading history_sessions: %w", err)
	}
	eorder := `"` + eSession + `", rowid`
	if c.seq != "" {
		eorder = `"` + eSession + `", "` + c.seq + `", rowid`
	}
	entryRows, err := reader.QueryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM history_entries ORDER BY `+eorder)
	if err != nil {
		return fmt.Errorf("tau: reading history_entries: %w", err)
	}
	bySession := map[string][]map[string]any{}
	for _, m := range entryRows {
		bySession[reader.ColString(m, eSession)] = append(bySession[reader.ColString(m, eSession)], m)
	}

	known := map[string]bool{}
	for _, sm := range sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		sid := reader.ColString(sm, sID)
		if sid == "" {
			continue
		}
		known[sid] = true
		attrs := tauSessionAttributes(sid, reader.ColString(sm, sAttrs), kv[sid], out)
		chat := &annals.Chat{ID: reader.ChatID(f.Name(), sid), Attributes: tauAttributes(attrs, f.Name(), func(msg string) { out.Warnf(0, "history_sessions %s: %s", sid, msg) }), CreatedAt: reader.ColTime(sm, sCreated)}
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
			return err
		}
		if err := reader.EmitEntries(chat.ID, f.entries(bySession[sid], c, chat, out), out); err != nil {
			return err
		}
	}
	return f.orphans(bySession, known, c, out)
}

// tauEntryColumns names the history_entries columns, as this database spells them.
func tauEntryColumns(ec map[string]bool) tauCols {
	return tauCols{
		id:        reader.PickColumn(ec, "id", "entry_id"),
		source:    reader.PickColumn(ec, "source_id", "source_message_id", "message_id"),
		kind:      reader.PickColumn(ec, "kind", "role", "type"),
		text:      reader.PickColumn(ec, "text", "content", "body"),
		tool:      reader.PickColumn(ec, "tool_name", "tool", "name"),
		args:      reader.PickColumn(ec, "arguments", "tool_arguments", "args", "input"),
		result:    reader.PickColumn(ec, "result", "tool_result", "output"),
		outcome:   reader.PickColumn(ec, "outcome", "status"),
		callID:    reader.PickColumn(ec, "call_id", "tool_call_id"),
		when:      reader.PickColumn(ec, "created_at", "time", "ts", "timestamp"),
		reasoning: reader.PickColumn(ec, "reasoning"),
		meta:      reader.PickColumn(ec, "metadata", "meta"),
		seq:       reader.PickColumn(ec, "seq", "position", "ordinal"),
	}
}

// tauAttributeTable reads the key-value attributes table, when there is one, by session.
func tauAttributeTable(ctx context.Context, db *sql.DB, tables map[string]bool) (map[string]map[string]string, error) {
	attrTable := ""
	for _, t := range []string{"history_attributes", "history_session_attributes", "attributes"} {
		if tables[t] {
			attrTable = t
			break
		}
	}
	kv := map[string]map[string]string{}
	if attrTable == "" {
		return kv, nil
	}
	ac, err := reader.TableColumns(ctx, db, attrTable)
	if err != nil {
		return kv, nil
	}
	aSession, aKey, aValue := reader.PickColumn(ac, "session_id", "session"), reader.PickColumn(ac, "key", "name"), reader.PickColumn(ac, "value")
	if aSession == "" || aKey == "" || aValue == "" {
		return kv, nil
	}
	rows, err := reader.QueryMaps(ctx, db, `SELECT * FROM "`+attrTable+`" ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("tau: reading %s: %w", attrTable, err)
	}
	for _, m := range rows {
		sid := reader.ColString(m, aSession)
		if kv[sid] == nil {
			kv[sid] = map[string]string{}
		}
		kv[sid][reader.ColString(m, aKey)] = reader.ColString(m, aValue)
	}
	return kv, nil
}

// tauSessionAttributes merges a session's attributes: its JSON column (values that are not
// strings kept as JSON), then the key-value table's.
func tauSessionAttributes(sid, raw string, kv map[string]string, out reader.Output) annals.Attributes {
	attrs := annals.Attributes{}
	if raw != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			out.Warnf(0, "history_sessions %s: attributes are not a JSON object; dropped", sid)
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				attrs[k] = s
			} else if b, err := json.Marshal(v); err == nil {
				attrs[k] = string(b)
			}
		}
	}
	for k, v := range kv {
		attrs[k] = v
	}
	return attrs
}

// orphans imports the entries of sessions with no session row: they are still history, and
// their chat is made from what the entries say.
func (f Tau) orphans(bySession map[string][]map[string]any, known map[string]bool, c tauCols, out reader.Output) error {
	var orphans []string
	for sid := range bySession {
		if !known[sid] && sid != "" {
			orphans = append(orphans, sid)
		}
	}
	sort.Strings(orphans)
	for _, sid := range orphans {
		out.Warnf(0, "history_entries: session %s has no history_sessions row; imported without attributes", sid)
		chat := &annals.Chat{ID: reader.ChatID(f.Name(), sid), Attributes: annals.Attributes{"source": f.Name()}}
		if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
			return err
		}
		// In appends the capture accepts, as for sessions with a row.
		if err := reader.EmitEntries(chat.ID, f.entries(bySession[sid], c, chat, out), out); err != nil {
			return err
		}
	}
	return nil
}

// tauAttributes keeps Tau's attributes, renaming its own source to tau_source and bounding the
// set to what a chat can hold.
func tauAttributes(in annals.Attributes, source string, warn func(string)) annals.Attributes {
	out := annals.Attributes{"source": source}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in[k]
		name := k
		if k == "source" {
			name = "tau_source"
		}
		if name == "" || len(name) > annals.MaxAttrKeyBytes || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			warn(fmt.Sprintf("attribute %.40q has an unusable name; dropped", k))
			continue
		}
		if len(out) >= annals.MaxAttributes {
			warn(fmt.Sprintf("more than %d attributes; %q and later ones dropped", annals.MaxAttributes, k))
			break
		}
		out[name] = reader.Truncated(reader.ValidText(v), annals.MaxAttrValueBytes)
	}
	return out
}

type tauCols struct{ id, source, kind, text, tool, args, result, outcome, callID, when, reasoning, meta, seq string }

func (f Tau) entries(rows []map[string]any, c tauCols, chat *annals.Chat, out reader.Output) []*annals.Entry {
	var ents []*annals.Entry
	last := chat.CreatedAt
	for _, m := range rows {
		id := reader.ColString(m, c.id)
		if id == "" {
			id = "seq-" + reader.FirstNonEmpty(reader.ColString(m, c.seq), reader.ColString(m, "annals_rowid"))
		}
		when := reader.ColTime(m, c.when)
		if when.IsZero() {
			when = last
		}
		last = when
		e := &annals.Entry{ID: reader.SafeID(id, annals.MaxIDBytes), Time: when, Text: reader.ValidText(reader.ColString(m, c.text)), Reasoning: reader.ValidText(reader.ColString(m, c.reasoning))}
		if s := reader.ColString(m, c.source); s != "" {
			e.SourceIDs = []string{reader.SafeID(s, annals.MaxIDBytes)}
		}
		kind := strings.ToLower(reader.ColString(m, c.kind))
		meta := map[string]any{}
		if raw := reader.ColString(m, c.meta); raw != "" {
			scrubbed, _ := reader.ScrubOpaque(reader.RawJSON(raw))
			meta["tau"] = scrubbed
		}
		switch kind {
		case "user", "human":
			e.Kind = annals.KindUser
		case "assistant", "model":
			e.Kind = annals.KindAssistant
		case "system", "warning", "note":
			e.Kind = annals.KindSystem
			if kind != "system" {
				meta["tau_kind"] = kind
			}
		case "tool", "tool_call":
			e.Kind = annals.KindTool
			e.Tool = &annals.ToolCall{Name: reader.ToolName(reader.ColString(m, c.tool)), CallID: reader.SafeID(reader.ColString(m, c.callID), annals.MaxIDBytes),
				Arguments: reader.RawJSON(reader.ColString(m, c.args)), Result: reader.Truncated(reader.ValidText(reader.ColString(m, c.result)), annals.MaxEntryBytes/4),
				Outcome: tauOutcome(reader.ColString(m, c.outcome))}
			if o := reader.ColString(m, c.outcome); o != "" && string(e.Tool.Outcome) != strings.ToLower(o) {
				meta["tau_outcome"] = o
			}
		default:
			e.Kind = annals.KindEvent
			e.Channel = "tau/" + reader.SanitizeChannel(reader.FirstNonEmpty(kind, "unknown"))
		}
		e.Metadata = reader.Metadata(meta)
		ents = append(ents, e)
	}
	return ents
}

// tauOutcome maps a terminal outcome onto annals's four; Tau records only completed calls, so
// an unknown value is kept in metadata and the outcome left empty.
func tauOutcome(s string) annals.Outcome {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "succeeded", "success", "ok", "completed", "done":
		return annals.OutcomeSucceeded
	case "failed", "failure", "error", "errored":
		return annals.OutcomeFailed
	case "blocked", "denied", "rejected", "refused":
		return annals.OutcomeBlocked
	case "cancelled", "canceled", "aborted", "interrupted":
		return annals.OutcomeCancelled
	}
	return ""
}
