// Package openhands reads the histories of OpenHands for annals import (docs/IMPORT.md): one reader
// behind the importer/reader contracts (detect, default locations, read), listed in
// importer.Formats.
package openhands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// OpenHands imports OpenHands conversations, one folder each with one JSON file per event:
//
//   - the agent SDK (OpenHands 1.x): ~/.openhands/conversations/<id>/events/event-<n>-<id>.json,
//     beside base_state.json; events are typed by kind (OpenHands/software-agent-sdk,
//     openhands/sdk/event): MessageEvent {source, llm_message {role, content, reasoning_content}},
//     ActionEvent {thought, reasoning_content, tool_name, tool_call_id, tool_call {arguments}},
//     ObservationEvent {tool_call_id, observation {content, is_error, exit_code}},
//     UserRejectObservation, AgentErrorEvent, SystemPromptEvent, condensations, state updates;
//   - the earlier server (OpenHands 0.x): ~/.openhands/sessions/<id>/events/<n>.json beside
//     metadata.json; an event is an action {id, source, action, args, message} or an
//     observation {id, cause, observation, content, extras} answering the action with id cause
//     (All-Hands-AI/OpenHands, frontend/src/types/core/base.ts).
//
// A conversation folder is one source, read whole when any event file changes.
type OpenHands struct{}

func (OpenHands) Name() string { return "openhands" }

func (OpenHands) DefaultPaths(home string) []string {
	return []string{filepath.Join(home, ".openhands", "conversations", "*"), filepath.Join(home, ".openhands", "sessions", "*")}
}

// Detect claims a conversation folder: an events/ folder beside the state file of either
// generation.
func (OpenHands) Detect(path string, head []byte) bool {
	if head != nil || !reader.IsDir(filepath.Join(path, "events")) {
		return false
	}
	for _, f := range []string{"base_state.json", "metadata.json", "agent_state.pkl"} {
		if _, err := os.Stat(filepath.Join(path, f)); err == nil {
			return true
		}
	}
	return false
}

// ohEvents reads the event files in their order (the number in each file name).
func ohEvents(dir string, out reader.Output) []reader.JSONObject {
	files := reader.JSONFiles(filepath.Join(dir, "events"))
	num := func(p string) int {
		base := strings.TrimPrefix(filepath.Base(p), "event-")
		n, _ := strconv.Atoi(strings.SplitN(strings.TrimSuffix(base, ".json"), "-", 2)[0])
		return n
	}
	sort.SliceStable(files, func(i, j int) bool { return num(files[i]) < num(files[j]) })
	var evs []reader.JSONObject
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			out.Warnf(0, "%s: %v", p, err)
			continue
		}
		o, err := reader.DecodeObject(b)
		if err != nil {
			out.Warnf(0, "%s: not a JSON object: %v", p, err)
			continue
		}
		evs = append(evs, o)
	}
	return evs
}

func (f OpenHands) ParseFile(ctx context.Context, src *reader.Source, out reader.Output) error {
	evs := ohEvents(src.Path, out)
	chatID := reader.ChatID(f.Name(), filepath.Base(src.Path))
	created := src.ModTime.UTC()
	if len(evs) > 0 {
		created = reader.FirstTime(reader.ParseTime(evs[0].Str("timestamp")), created)
	}
	chat := &annals.Chat{ID: chatID, Attributes: annals.Attributes{"source": f.Name()}, CreatedAt: created}
	if b, err := os.ReadFile(filepath.Join(src.Path, "metadata.json")); err == nil {
		if m, err := reader.DecodeObject(b); err == nil {
			chat.Title = reader.Truncated(reader.ValidText(m.Str("title")), annals.MaxTitleBytes)
			if r := m.Str("selected_repository"); r != "" {
				chat.Attributes["repository"] = r
			}
		}
	}
	if err := out.Emit(annals.CaptureOp{Chat: reader.CleanChat(chat)}); err != nil {
		return err
	}
	calls := map[string]*annals.Entry{}
	var entries []*annals.Entry
	last := created
	for i, ev := range evs {
		if err := ctx.Err(); err != nil {
			return err
		}
		last = reader.FirstTime(reader.ParseTime(ev.Str("timestamp")), last)
		id := reader.SafeID(reader.FirstNonEmpty(ev.Str("id"), reader.TextOf(ev.Raw("id")), fmt.Sprintf("e%d", i)), 200)
		var ents []*annals.Entry
		// An observation's own time (none when the event has no timestamp) is when its call's
		// result arrived.
		at := reader.ParseTime(ev.Str("timestamp"))
		if ev.Str("kind") != "" {
			ents = ohSDKEvent(ev, id, at, calls)
		} else {
			ents = ohLegacyEvent(ev, id, at, calls)
		}
		for _, e := range ents {
			e.Time = last
			e.SourceIDs = []string{id}
		}
		entries = append(entries, ents...)
	}
	return reader.EmitEntries(chatID, entries, out)
}

// ohContentText joins the text items of an SDK content list (or returns a plain string).
func ohContentText(raw json.RawMessage) string {
	return reader.BlocksText(raw)
}

// ohSetResult lands a result on a waiting call.
func ohSetResult(calls map[string]*annals.Entry, callID string, at time.Time, result string, outcome annals.Outcome) bool {
	call := calls[callID]
	if callID == "" || call == nil {
		return false
	}
	call.Tool.Result, call.Tool.Outcome = reader.Truncated(reader.ValidText(result), annals.MaxEntryBytes/4), outcome
	reader.ResultTime(call, at)
	delete(calls, callID)
	return true
}
