package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/ingest"
)

// The capture routes write chats as the caller. Whose chat is created comes from the caller's
// principal, never from the body:
//
//   - a non-admin's chats are created in the key's tenant, whatever the body says;
//   - when the key has a user (agent), the chat gets that user (agent); a body naming another
//     one is refused; a key without a user (agent) may name one;
//   - an admin may name any tenant, user and agent; a chat without a tenant gets the admin's.
//
// The created chat must fall inside the caller's widest allowed scope, so a caller can always
// read back what it wrote. Every append, truncation and run targets a chat that must already be
// in that scope, or be created earlier in the same request; otherwise it is the same opaque
// not-found as a chat that does not exist. A chat in scope must also be the caller's to change
// (history.CanModify: operator, admin, or the chat's own user or agent), else 403. Then the ops
// go through the redacting capture path.

// guard checks and rewrites ops for the caller in ctx. The returned slice is a copy; the
// caller's ops are not modified. An error names the failing op as an *annals.BatchError.
func (s *Server) guard(ctx context.Context, ops []annals.CaptureOp) ([]annals.CaptureOp, error) {
	res, err := history.Resolve(ctx, "")
	if err != nil {
		return nil, err
	}
	p := res.Principal
	out := make([]annals.CaptureOp, len(ops))
	inScope := map[string]bool{}
	for i, op := range ops {
		out[i] = op
		var chatID string
		switch {
		case op.Chat != nil:
			c, err := s.ownChat(ctx, p, res.Owner, op.Chat)
			if err != nil {
				return nil, &annals.BatchError{Index: i, Err: err}
			}
			out[i].Chat = c
			inScope[c.ID] = true
			continue
		case op.Append != nil:
			chatID = op.Append.ChatID
		case op.Truncate != nil:
			chatID = op.Truncate.ChatID
		case op.Run != nil:
			chatID = op.Run.ChatID
		default:
			// Validation (in the store) reports the malformed op.
			continue
		}
		if inScope[chatID] {
			continue
		}
		chat, err := s.store.FindChatByID(ctx, chatID)
		if annals.ErrorCode(err) == annals.ENOTFOUND || (err == nil && !res.Owner.Matches(chat)) {
			return nil, &annals.BatchError{Index: i, Err: annals.NotFound(chatID)}
		}
		if err != nil {
			return nil, &annals.BatchError{Index: i, Err: err}
		}
		// Seeing a colleague's chat is not owning it: appending to it, rewinding it or
		// recording runs on it needs the same right as deleting it.
		if !history.CanModify(p, chat) {
			return nil, &annals.BatchError{Index: i, Err: annals.Errorf(annals.EFORBIDDEN, "writing to chat %q needs an operator or admin, or the chat's own user or agent", chatID)}
		}
		inScope[chatID] = true
	}
	return out, nil
}

// ownChat gives a chat to be created the caller's identity and checks it lands in scope.
func (s *Server) ownChat(ctx context.Context, p *annals.Principal, owner annals.Owner, in *annals.Chat) (*annals.Chat, error) {
	c := *in
	if !p.IsAdmin() {
		c.TenantID = p.TenantID
		if p.UserID != "" {
			if c.UserID != "" && c.UserID != p.UserID {
				return nil, annals.Errorf(annals.EFORBIDDEN, "chat.user_id %q is not this key's user: a key with a user creates chats only for that user (leave user_id out)", c.UserID)
			}
			c.UserID = p.UserID
		}
		if p.AgentID != "" {
			if c.AgentID != "" && c.AgentID != p.AgentID {
				return nil, annals.Errorf(annals.EFORBIDDEN, "chat.agent_id %q is not this key's agent: a key with an agent creates chats only for that agent (leave agent_id out)", c.AgentID)
			}
			c.AgentID = p.AgentID
		}
	} else if c.TenantID == "" {
		c.TenantID = p.TenantID
	}
	if !owner.Matches(&c) {
		return nil, annals.Errorf(annals.EFORBIDDEN, "chat %q would be outside this caller's history scope (tenant %q, user %q, agent %q); give the chat this key's user or agent", c.ID, c.TenantID, c.UserID, c.AgentID)
	}
	// Chat ids are unique across tenants. A chat of someone else answers exactly like a chat of
	// the caller with different immutable data, without saying whose it is.
	existing, err := s.store.FindChatByID(ctx, c.ID)
	if err == nil && !owner.Matches(existing) {
		return nil, annals.Errorf(annals.ECONFLICT, "chat %q already exists with different immutable data (tenant, user, agent or attributes cannot change after creation)", c.ID)
	}
	if err != nil && annals.ErrorCode(err) != annals.ENOTFOUND {
		return nil, err
	}
	return &c, nil
}

// guardedCapture is the capture path of one request: guard, then the server's (redacting)
// capture store. ingest.Ingest writes through it for POST /v1/ingest.
type guardedCapture struct{ s *Server }

func (g guardedCapture) Capture(ctx context.Context, ops []annals.CaptureOp) (*annals.CaptureResult, error) {
	ops, err := g.s.guard(ctx, ops)
	if err != nil {
		return nil, err
	}
	return g.s.capture.Capture(ctx, ops)
}

func (g guardedCapture) one(ctx context.Context, op annals.CaptureOp) (annals.CaptureOp, error) {
	ops, err := g.s.guard(ctx, []annals.CaptureOp{op})
	if err != nil {
		if be, ok := err.(*annals.BatchError); ok {
			return op, be.Err
		}
		return op, err
	}
	return ops[0], nil
}

func (g guardedCapture) CreateChat(ctx context.Context, chat *annals.Chat) (*annals.Chat, error) {
	op, err := g.one(ctx, annals.CaptureOp{Chat: chat})
	if err != nil {
		return nil, err
	}
	return g.s.capture.CreateChat(ctx, op.Chat)
}

func (g guardedCapture) AppendEntries(ctx context.Context, chatID string, entries []*annals.Entry) (*annals.AppendResult, error) {
	if _, err := g.one(ctx, annals.CaptureOp{Append: &annals.AppendOp{ChatID: chatID}}); err != nil {
		return nil, err
	}
	return g.s.capture.AppendEntries(ctx, chatID, entries)
}

func (g guardedCapture) TruncateChat(ctx context.Context, chatID string, p annals.TruncatePoint) (*annals.TruncateResult, error) {
	if _, err := g.one(ctx, annals.CaptureOp{Truncate: &annals.TruncateOp{ChatID: chatID}}); err != nil {
		return nil, err
	}
	return g.s.capture.TruncateChat(ctx, chatID, p)
}

func (g guardedCapture) RecordRun(ctx context.Context, run *annals.Run) (*annals.Run, error) {
	if _, err := g.one(ctx, annals.CaptureOp{Run: run}); err != nil {
		return nil, err
	}
	return g.s.capture.RecordRun(ctx, run)
}

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
	res, err := guardedCapture{s}.Capture(r.Context(), []annals.CaptureOp{op})
	if err != nil {
		return unbatch(err)
	}
	chat, err := s.store.FindChatByID(r.Context(), op.Chat.ID)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.ChatsCreated > 0 {
		status = http.StatusCreated
	}
	return writeJSON(w, status, ChatAnswer{Chat: chat, Created: res.ChatsCreated > 0})
}

// handleAppend serves POST /v1/sessions/{id}/entries.
func (s *Server) handleAppend(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.chatInScope(r, id, ""); err != nil {
		return err
	}
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	entries, err := decodeEntries(body, id, s.now())
	if err != nil {
		return err
	}
	res, err := guardedCapture{s}.AppendEntries(r.Context(), id, entries)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, res)
}

// handleTruncate serves POST /v1/sessions/{id}/truncate: {"entry_id"|"source_id"|"seq"}.
func (s *Server) handleTruncate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := s.chatInScope(r, id, ""); err != nil {
		return err
	}
	body, err := readAll(r.Body)
	if err != nil {
		return err
	}
	op, err := decodeRecord(body, "truncate", id, s.now())
	if err != nil {
		return err
	}
	res, err := guardedCapture{s}.TruncateChat(r.Context(), id, op.Truncate.Point)
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
	run, err := guardedCapture{s}.RecordRun(r.Context(), op.Run)
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
	if err := decodeStrict(r.Body, &req); err != nil {
		return err
	}
	if len(req.Ops) == 0 {
		return annals.Errorf(annals.EINVALID, `"ops" must hold at least one capture op`)
	}
	res, err := guardedCapture{s}.Capture(r.Context(), req.Ops)
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
	rep, err := ingest.Ingest(r.Context(), guardedCapture{s}, bytes.NewReader(body), ingest.Options{Now: s.now})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// unbatch drops the batch index of a one-op batch: it is the request itself.
func unbatch(err error) error {
	if be, ok := err.(*annals.BatchError); ok {
		return be.Err
	}
	return err
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
