package lanius

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// laniusEvent is one events row.
type laniusEvent struct {
	id      int64
	typ     string
	corr    string
	payload sql.NullString
	when    time.Time
	// fields are the row's other columns (cause_id, state, priority, deadline, ...) as stored,
	// kept whole in the entry's metadata so nothing of the ledger is lost.
	fields map[string]any
}

// laniusLedger is the whole events table, in ledger (id) order.
type laniusLedger struct {
	order []*laniusEvent
	byID  map[int64]*laniusEvent
}

// LedgerAttribute marks a chat holding a ledger of events, not a conversation: the query view
// keeps it out of sessions, agents and search (queryview.LedgerAttribute).
const LedgerAttribute = "ledger"

// LaniusEventMetaKey is the entry metadata key under which a lanius event keeps its ledger
// fields: {"id", "cause_id", "state", "payload_null", ...every other column as stored}. The
// query view reads it back to answer conversation exactly as lanius does.
const LaniusEventMetaKey = "lanius_event"

// readLaniusLedger reads every event. Column names are looked up, so the older schema guesses
// (event_type, correlation, data, ts, ...) read too.
func readLaniusLedger(ctx context.Context, db *sql.DB, out reader.Output) (*laniusLedger, error) {
	ec, err := reader.TableColumns(ctx, db, "events")
	if err != nil {
		return nil, err
	}
	eID := reader.PickColumn(ec, "id", "event_id", "seq")
	eType := reader.PickColumn(ec, "type", "event_type", "kind", "channel")
	eCorr := reader.PickColumn(ec, "correlation_id", "correlation")
	ePayload := reader.PickColumn(ec, "payload", "data", "body", "content")
	eTime := reader.PickColumn(ec, "created_at", "ts", "timestamp", "time")
	order := "rowid"
	if eID != "" {
		order = `"` + eID + `"`
	}
	rows, err := reader.QueryMaps(ctx, db, `SELECT rowid AS annals_rowid, * FROM events ORDER BY `+order)
	if err != nil {
		return nil, fmt.Errorf("reading events: %w", err)
	}
	known := map[string]bool{"annals_rowid": true, eID: true, eType: true, eCorr: true, ePayload: true}
	l := &laniusLedger{byID: map[int64]*laniusEvent{}}
	for i, m := range rows {
		id := reader.ColInt(m, eID)
		if eID == "" {
			id = reader.ColInt(m, "annals_rowid")
		}
		ev := &laniusEvent{id: id, typ: reader.ColString(m, eType), corr: reader.ColString(m, eCorr), when: reader.ColTime(m, eTime), fields: map[string]any{}}
		if ePayload != "" && m[ePayload] != nil {
			ev.payload = sql.NullString{String: reader.ColString(m, ePayload), Valid: true}
		}
		for k, v := range m {
			if !known[k] {
				ev.fields[k] = v
			}
		}
		if ev.typ == "" {
			out.Warnf(0, "events row %d: no event type; kept as type \"unknown\"", i+1)
			ev.typ = "unknown"
		}
		l.byID[id] = ev
		l.order = append(l.order, ev)
	}
	return l, nil
}

// emitLedger writes every event, in id order, to the ledger chat.
func (f Lanius) emitLedger(l *laniusLedger, out reader.Output) error {
	chatID := reader.ChatID(f.Name(), laniusLedgerID)
	created := l.order[0].when
	chat := &annals.Chat{ID: chatID, Title: "lanius ledger (every event, in ledger order)", CreatedAt: created,
		Attributes: annals.Attributes{"source": f.Name(), LedgerAttribute: "lanius"}}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	entries := make([]*annals.Entry, 0, len(l.order))
	last := created
	for _, ev := range l.order {
		when := ev.when
		if when.IsZero() {
			when = last
		}
		last = when
		entries = append(entries, laniusEventEntry(ev, when))
	}
	return reader.EmitEntries(chatID, entries, out)
}

// laniusEventEntry maps one event. Its payload is the entry text exactly as stored (JSON, a
// raw string or a number), so conversation answers it as lanius does; a NULL payload is marked
// in the metadata, since an empty text could also be an empty string. Opaque blobs (encrypted
// reasoning, signatures) are dropped from JSON payloads, as everywhere in annals.
func laniusEventEntry(ev *laniusEvent, when time.Time) *annals.Entry {
	id := fmt.Sprintf("e%d", ev.id)
	e := &annals.Entry{ID: id, Kind: annals.KindEvent, Channel: laniusChannel(ev.typ),
		CorrelationID: reader.SafeID(ev.corr, annals.MaxIDBytes), Time: when, SourceIDs: []string{id}}
	meta := map[string]any{"id": ev.id}
	for k, v := range ev.fields {
		if t, ok := v.(time.Time); ok {
			v = t.UTC().Format(time.RFC3339Nano)
		}
		meta[k] = v
	}
	if !ev.payload.Valid {
		meta["payload_null"] = true
	} else {
		text := ev.payload.String
		if trimmed := strings.TrimSpace(text); json.Valid([]byte(trimmed)) {
			if scrubbed, changed := reader.ScrubOpaque(json.RawMessage(trimmed)); changed {
				text = string(scrubbed)
				meta["payload_scrubbed"] = true
			}
		}
		e.Text = reader.Truncated(reader.ValidText(text), annals.MaxEntryBytes/4)
	}
	e.Metadata = reader.SafeMeta(map[string]any{LaniusEventMetaKey: meta})
	return e
}
