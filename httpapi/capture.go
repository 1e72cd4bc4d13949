package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/ingest"
)

// The capture routes write as the caller through the history service's capture methods, which
// decide who owns a new chat, whether a target chat is in scope and whether the caller may change
// it, bind each op to the chat it checked, and redact (history/write.go). The routes only decode
// and encode.

// ChatAnswer is the answer of POST /v1/sessions: the chat as stored, and whether this request
// created it (201) or found it already there with the same immutable data (200).
type ChatAnswer struct {
	Chat    *annals.Chat `json:"chat"`
	Created bool         `json:"created"`
}

// handleCreateChat serves POST /v1/sessions: one chat object of the capture format (type may be
// left out).
func (s *Server) handleCreateChat(w http.ResponseWriter, r *http.Request) error {
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	op, err := decodeRecord(body, "chat", "", s.now())
	if err != nil {
		return err
	}
	if !hasMember(body, "tenant_id") {
		// The decoder gives a chat without a tenant the format's default ("local"); over HTTP the
		// default is the caller's tenant.
		op.Chat.TenantID = ""
	}
	res, err := s.historyFor(r.Context()).Capture(r.Context(), []annals.CaptureOp{op})
	if err != nil {
		return annals.Unbatch(err)
	}
	// The chat as stored (an existing one keeps its own human layer): read back as the caller.
	view, err := s.historyFor(r.Context()).GetChat(r.Context(), annals.GetParams{Chat: annals.ChatSelector{ID: op.Chat.ID}, Limit: 1})
	if err != nil {
		return err
	}
	chat := view.Chat
	status := http.StatusOK
	if res.ChatsCreated > 0 {
		status = http.StatusCreated
	}
	return writeJSON(w, status, ChatAnswer{Chat: chat, Created: res.ChatsCreated > 0})
}

// handleAppend serves POST /v1/sessions/{id}/entries.
func (s *Server) handleAppend(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	entries, err := decodeEntries(r.Context(), body, id, s.now())
	if err != nil {
		return err
	}
	res, err := annals.AppendEntries(r.Context(), s.historyFor(r.Context()), id, entries)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// handleTruncate serves POST /v1/sessions/{id}/truncate: {"entry_id"|"source_id"|"seq"}.
func (s *Server) handleTruncate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	op, err := decodeRecord(body, "truncate", id, s.now())
	if err != nil {
		return err
	}
	res, err := annals.TruncateChat(r.Context(), s.historyFor(r.Context()), id, op.Truncate.Point)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// RunAnswer is the answer of POST /v1/runs.
type RunAnswer struct {
	Run *annals.Run `json:"run"`
}

// handleRun serves POST /v1/runs: one run object of the capture format (an upsert by id).
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) error {
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	op, err := decodeRecord(body, "run", "", s.now())
	if err != nil {
		return err
	}
	run, err := annals.RecordRun(r.Context(), s.historyFor(r.Context()), op.Run)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, RunAnswer{Run: run})
}

// CaptureRequest is the body of POST /v1/capture: a batch of capture ops in their Go JSON form
// (annals.CaptureOp), applied in one transaction.
type CaptureRequest struct {
	Ops []annals.CaptureOp `json:"ops"`
}

// handleCapture serves POST /v1/capture, the batch route the Go client's Capture uses.
func (s *Server) handleCapture(w http.ResponseWriter, r *http.Request) error {
	var req CaptureRequest
	if err := decodeStrict(r.Context(), r.Body, &req); err != nil {
		return err
	}
	if len(req.Ops) == 0 {
		return annals.Errorf(annals.EINVALID, `"ops" must hold at least one capture op`)
	}
	res, err := s.historyFor(r.Context()).Capture(r.Context(), req.Ops)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// handleIngest serves POST /v1/ingest: a body in the capture format (JSON Lines of chat, entry,
// run and truncate records), validated whole and then applied like `annals ingest`.
func (s *Server) handleIngest(w http.ResponseWriter, r *http.Request) error {
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	rep, err := ingest.Ingest(r.Context(), s.historyFor(r.Context()), bytes.NewReader(body), ingest.Options{Now: s.now})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// hasMember reports whether a JSON object body has a top-level member name.
func hasMember(body []byte, name string) bool {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}
