package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/importer/reader"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readOpenCodeStorage reads every session under root with its messages and parts. A file that
// is not valid JSON is reported and skipped.
func readOpenCodeStorage(ctx context.Context, root string, out reader.Output) ([]*ocSession, error) {
	readObj := func(path string) (reader.JSONObject, bool) {
		b, err := os.ReadFile(path)
		if err != nil {
			out.Warnf(0, "%s: %v", path, err)
			return nil, false
		}
		o, err := reader.DecodeObject(b)
		if err != nil {
			out.Warnf(0, "%s: not a JSON object: %v", path, err)
			return nil, false
		}
		return o, true
	}
	files, err := openCodeSessionFiles(filepath.Join(root, "session"))
	if err != nil {
		return nil, err
	}
	flat := openCodeFlatParts(root, readObj)
	var sessions []*ocSession
	for _, p := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, ok := readObj(p)
		if !ok {
			continue
		}
		id := info.Str("id")
		if id == "" {
			out.Warnf(0, "%s: session without an id, skipped", p)
			continue
		}
		if !ocSafeName(id) {
			// Ids become directory names below; one like "../x" must never lead out of the
			// storage root.
			out.Warnf(0, "%s: session id %q is not a plain name, skipped", p, id)
			continue
		}
		s := &ocSession{info: info, where: p}
		s.messages = openCodeStorageMessages(root, id, readObj, flat, out)
		sortOpenCodeMessages(s.messages)
		sessions = append(sessions, s)
	}
	sortOpenCodeSessions(sessions)
	return sessions, nil
}

// openCodeSessionFiles lists the session files under sessionDir, in name order.
func openCodeSessionFiles(sessionDir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(sessionDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subdirectory is skipped, not fatal
		}
		if d.IsDir() {
			// The pre-0.4 layout nests messages and parts under session/.
			if p != sessionDir && (d.Name() == "message" || d.Name() == "part") && filepath.Dir(p) == sessionDir {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("opencode: reading %s: %w", sessionDir, err)
	}
	sort.Strings(files)
	return files, nil
}

// openCodeStorageMessages reads session id's messages, each with its parts (from the
// per-message part directory, merged with the flat parts).
func openCodeStorageMessages(root, id string, readObj func(string) (reader.JSONObject, bool), flat map[string][]ocPart, out reader.Output) []ocMessage {
	var messages []ocMessage
	msgDir := firstDir(filepath.Join(root, "message", id), filepath.Join(root, "session", "message", id))
	for _, mp := range reader.JSONFiles(msgDir) {
		mi, ok := readObj(mp)
		if !ok {
			continue
		}
		msg := ocMessage{info: mi, where: mp}
		mid := mi.Str("id")
		if mid == "" {
			mid = strings.TrimSuffix(filepath.Base(mp), ".json")
			mi["id"], _ = json.Marshal(mid)
		}
		if !ocSafeName(mid) {
			out.Warnf(0, "%s: message id %q is not a plain name, skipped", mp, mid)
			continue
		}
		partDir := firstDir(filepath.Join(root, "part", mid), filepath.Join(root, "session", "part", id, mid))
		for _, pp := range reader.JSONFiles(partDir) {
			po, ok := readObj(pp)
			if !ok {
				continue
			}
			msg.parts = append(msg.parts, ocPart{obj: po, name: mid + "/" + strings.TrimSuffix(filepath.Base(pp), ".json"), where: pp})
		}
		msg.parts = mergeFlatParts(msg.parts, flat[mid])
		messages = append(messages, msg)
	}
	return messages
}

// sortOpenCodeSessions puts parents first, so a sub-agent's chat is created after the chat it
// points to; then orders by creation time, so the import reads in the order the user worked.
func sortOpenCodeSessions(sessions []*ocSession) {
	sort.SliceStable(sessions, func(i, j int) bool {
		pi, pj := sessions[i].info.Str("parentID") != "", sessions[j].info.Str("parentID") != ""
		if pi != pj {
			return !pi
		}
		ti, tj := sessions[i].info.Obj("time").Num("created"), sessions[j].info.Obj("time").Num("created")
		if ti != tj {
			return ti < tj
		}
		return sessions[i].info.Str("id") < sessions[j].info.Str("id")
	})
}

func firstDir(dirs ...string) string {
	for _, d := range dirs {
		if reader.IsDir(d) {
			return d
		}
	}
	return ""
}

// openCodeFlatParts reads the parts kept flat, one file per part directly in part/ (or in
// session/part/<session>/ of the oldest layout) rather than in a folder per message, and
// groups them by the messageID each part names. Without this, a flat layout's text and tool
// parts would be lost: no message folder names them.
func openCodeFlatParts(root string, readObj func(string) (reader.JSONObject, bool)) map[string][]ocPart {
	dirs := []string{filepath.Join(root, "part")}
	if ents, err := os.ReadDir(filepath.Join(root, "session", "part")); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, "session", "part", e.Name()))
			}
		}
	}
	out := map[string][]ocPart{}
	for _, dir := range dirs {
		for _, pp := range reader.JSONFiles(dir) {
			po, ok := readObj(pp)
			if !ok {
				continue
			}
			mid := po.Str("messageID")
			if mid == "" {
				continue // a part that names no message cannot be placed
			}
			out[mid] = append(out[mid], ocPart{obj: po, name: mid + "/" + strings.TrimSuffix(filepath.Base(pp), ".json"), where: pp})
		}
	}
	return out
}

// mergeFlatParts adds a message's flat parts to those of its folder, each part once (by id),
// in id order: OpenCode's part ids sort in creation order.
func mergeFlatParts(parts, flat []ocPart) []ocPart {
	if len(flat) == 0 {
		return parts
	}
	have := map[string]bool{}
	for _, p := range parts {
		have[reader.FirstNonEmpty(p.obj.Str("id"), p.name)] = true
	}
	for _, p := range flat {
		if id := reader.FirstNonEmpty(p.obj.Str("id"), p.name); !have[id] {
			have[id] = true
			parts = append(parts, p)
		}
	}
	sort.SliceStable(parts, func(i, j int) bool {
		return reader.FirstNonEmpty(parts[i].obj.Str("id"), parts[i].name) < reader.FirstNonEmpty(parts[j].obj.Str("id"), parts[j].name)
	})
	return parts
}
