package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/importer/reader"
	"sort"
)

// OpenCode 1.2 moved its history from the JSON files of storage/ into one SQLite database,
// ~/.local/share/opencode/opencode.db, with the same records (its schema,
// packages/opencode/src/session/session.sql.ts in sst/opencode):
//
//	session(id, project_id, parent_id, slug, directory, title, version, share_url, ...,
//	        time_created, time_updated)       -- times in Unix milliseconds
//	message(id, session_id, time_created, time_updated, data)            -- data: the message
//	part(id, message_id, session_id, time_created, time_updated, data)   -- data: the part
//
// where a message's data is the JSON of a storage/message file without its id and sessionID,
// and a part's the JSON of a storage/part file without id, sessionID and messageID. The reader
// puts those back and hands the sessions to the same mapping as the files, so a session
// imported from storage/ before the migration and from opencode.db after it is one chat.

// openCodeDBTables are the tables that make a SQLite file OpenCode's.
var openCodeDBTables = []string{"session", "message", "part"}

// readOpenCodeDB reads every session of an opencode.db with its messages and parts. A row whose
// data is not JSON is reported and skipped.
func readOpenCodeDB(ctx context.Context, path string, out reader.Output) ([]*ocSession, error) {
	db, err := reader.OpenSourceDB(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opencode: %w", err)
	}
	defer db.Close()
	sessions, err := ocDBSessions(ctx, db)
	if err != nil {
		return nil, err
	}
	byID := map[string]*ocSession{}
	for _, s := range sessions {
		byID[s.info.Str("id")] = s
	}
	msgs := map[string]*ocMessage{}
	var order []string
	err = ocDBRows(ctx, db, `SELECT id, session_id, '', data FROM message ORDER BY time_created, id`, out, func(id, sid, _ string, data reader.JSONObject) {
		data["id"], data["sessionID"] = reader.JSONString(id), reader.JSONString(sid)
		msgs[id] = &ocMessage{info: data, where: path + " message " + id}
		order = append(order, id)
	})
	if err != nil {
		return nil, err
	}
	err = ocDBRows(ctx, db, `SELECT id, session_id, message_id, data FROM part ORDER BY message_id, id`, out, func(id, sid, mid string, data reader.JSONObject) {
		data["id"], data["sessionID"], data["messageID"] = reader.JSONString(id), reader.JSONString(sid), reader.JSONString(mid)
		if m := msgs[mid]; m != nil {
			m.parts = append(m.parts, ocPart{obj: data, name: mid + "/" + id, where: path + " part " + id})
		} else {
			out.Warnf(0, "part %s: its message %s is not in the database; skipped", id, mid)
		}
	})
	if err != nil {
		return nil, err
	}
	for _, id := range order {
		m := msgs[id]
		if s := byID[m.info.Str("sessionID")]; s != nil {
			s.messages = append(s.messages, *m)
		} else {
			out.Warnf(0, "message %s: its session %s is not in the database; skipped", id, m.info.Str("sessionID"))
		}
	}
	for _, s := range sessions {
		sortOpenCodeMessages(s.messages)
	}
	return sessions, nil
}

// ocDBSessions reads the session rows into the shape of a storage/session file: parents first
// (a sub-agent's chat points to a chat created before it), then by creation time.
func ocDBSessions(ctx context.Context, db *sql.DB) ([]*ocSession, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, project_id, COALESCE(parent_id, ''), COALESCE(directory, ''), COALESCE(title, ''),
		COALESCE(version, ''), COALESCE(share_url, ''), COALESCE(time_created, 0), COALESCE(time_updated, 0) FROM session`)
	if err != nil {
		return nil, fmt.Errorf("opencode: reading sessions: %w", err)
	}
	defer rows.Close()
	var out []*ocSession
	for rows.Next() {
		var id, project, parent, dir, title, version, share string
		var created, updated int64
		if err := rows.Scan(&id, &project, &parent, &dir, &title, &version, &share, &created, &updated); err != nil {
			return nil, fmt.Errorf("opencode: reading sessions: %w", err)
		}
		info := map[string]any{"id": id, "projectID": project, "directory": dir, "title": title, "version": version,
			"time": map[string]int64{"created": created, "updated": updated}}
		if parent != "" {
			info["parentID"] = parent
		}
		if share != "" {
			info["share"] = map[string]string{"url": share}
		}
		b, err := json.Marshal(info)
		if err != nil {
			return nil, fmt.Errorf("opencode: session %s: %w", id, err)
		}
		obj, _ := reader.DecodeObject(b)
		out = append(out, &ocSession{info: obj, where: "session " + id})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("opencode: reading sessions: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := out[i].info.Str("parentID") != "", out[j].info.Str("parentID") != ""
		if pi != pj {
			return !pi
		}
		return out[i].info.Obj("time").Num("created") < out[j].info.Obj("time").Num("created")
	})
	return out, nil
}

// ocDBRows runs a query of (id, session id, message id, data) rows and hands each row with its
// data decoded to fn; a row whose data is not a JSON object is reported and skipped.
func ocDBRows(ctx context.Context, db *sql.DB, query string, out reader.Output, fn func(id, sid, mid string, data reader.JSONObject)) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, sid, mid string
		var data []byte
		if err := rows.Scan(&id, &sid, &mid, &data); err != nil {
			return fmt.Errorf("opencode: %w", err)
		}
		obj, err := reader.DecodeObject(data)
		if err != nil {
			out.Warnf(0, "row %s: data is not a JSON object: %v; skipped", id, err)
			continue
		}
		fn(id, sid, mid, obj)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	return nil
}
