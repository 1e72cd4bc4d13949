package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/annals-dev/annals"
)

// Defaults of the session bounds of HTTPOptions.
const (
	DefaultSessionsPerKey    = 32
	DefaultSessions          = 512
	DefaultIdleUnderPressure = 2 * time.Minute
)

// sessionIDHeader is the streamable transport's session header.
const sessionIDHeader = "Mcp-Session-Id"

// sessionTable counts the open sessions of the streamable HTTP handler, per key and in total,
// and makes room at a cap by closing the session idle longest, once it has been idle for the
// pressure threshold. A session counts from the request that asks for it (so concurrent
// initializations cannot overshoot a cap) until the SDK closes it: on DELETE, on its idle
// timeout, or on eviction here.
type sessionTable struct {
	perKey, total int
	pressure      time.Duration
	now           func() time.Time

	mu       sync.Mutex
	sessions map[string]*tracked
	keys     map[string]int
}

// tracked is one counted session.
type tracked struct {
	id, key string
	srv     *sdk.Server        // the session's own server (one per session)
	ss      *sdk.ServerSession // once connected
	last    time.Time          // the end of its last request (or its start, while posting)
	posting int                // requests in flight (a standalone GET stream does not count)
}

func newSessionTable(opts HTTPOptions) *sessionTable {
	t := &sessionTable{perKey: opts.SessionsPerKey, total: opts.Sessions, pressure: opts.IdleUnderPressure, now: time.Now,
		sessions: map[string]*tracked{}, keys: map[string]int{}}
	if t.perKey <= 0 {
		t.perKey = DefaultSessionsPerKey
	}
	if t.total <= 0 {
		t.total = DefaultSessions
	}
	if t.pressure <= 0 {
		t.pressure = DefaultIdleUnderPressure
	}
	return t
}

// capError is the refusal of a new session at a cap: the HTTP status, when to retry, and what
// the message says.
type capError struct {
	status int
	retry  time.Duration
	msg    string
}

// admit counts a new session id for key, first closing the longest-idle session past the
// pressure threshold when a cap is reached; at a cap with nothing idle enough it refuses.
func (t *sessionTable) admit(id, key string) *capError {
	t.mu.Lock()
	var victims []*sdk.ServerSession
	defer func() {
		t.mu.Unlock()
		for _, ss := range victims {
			_ = ss.Close() // the SDK forgets it; its Wait returns and drop finds nothing left
		}
	}()
	now := t.now()
	if t.keys[key] >= t.perKey {
		v, wait := t.idlest(key, now)
		if v == nil {
			return &capError{status: http.StatusTooManyRequests, retry: wait, msg: fmt.Sprintf(
				"too many MCP sessions: this API key holds %d, the most one key may (--mcp-sessions-per-key %d), and none has been idle for %s to make room; "+
					"end a session you no longer use (DELETE /mcp with its Mcp-Session-Id) or retry in %s", t.keys[key], t.perKey, t.pressure, wait.Round(time.Second))}
		}
		victims = append(victims, t.remove(v))
	}
	if len(t.sessions) >= t.total {
		v, wait := t.idlest("", now)
		if v == nil {
			return &capError{status: http.StatusServiceUnavailable, retry: wait, msg: fmt.Sprintf(
				"too many MCP sessions: the server holds %d, the most it keeps (--mcp-sessions %d), and none has been idle for %s to make room; retry in %s",
				len(t.sessions), t.total, t.pressure, wait.Round(time.Second))}
		}
		victims = append(victims, t.remove(v))
	}
	t.sessions[id] = &tracked{id: id, key: key, last: now, posting: 1}
	t.keys[key]++
	return nil
}

// idlest is the connected session (of key, or of anyone when key is "") idle longest, if it has
// been idle for the pressure threshold; otherwise nil and how long until one could be.
func (t *sessionTable) idlest(key string, now time.Time) (*tracked, time.Duration) {
	var best *tracked
	for _, s := range t.sessions {
		if (key != "" && s.key != key) || s.ss == nil || s.posting > 0 {
			continue
		}
		if best == nil || s.last.Before(best.last) {
			best = s
		}
	}
	if best == nil {
		return nil, t.pressure
	}
	if idle := now.Sub(best.last); idle < t.pressure {
		return nil, max(t.pressure-idle, time.Second)
	}
	return best, 0
}

// remove forgets s and returns its session for closing (outside the lock).
func (t *sessionTable) remove(s *tracked) *sdk.ServerSession {
	delete(t.sessions, s.id)
	if t.keys[s.key]--; t.keys[s.key] <= 0 {
		delete(t.keys, s.key)
	}
	return s.ss
}

// created records the server built for a counted id (getServer's).
func (t *sessionTable) created(id string, srv *sdk.Server) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sessions[id]; s != nil {
		s.srv = srv
	}
}

// settle runs after the request that asked for id: a session the SDK kept is watched until it
// closes; one it did not keep (a failed initialize) is forgotten now.
func (t *sessionTable) settle(id string) {
	t.mu.Lock()
	s := t.sessions[id]
	var ss *sdk.ServerSession
	if s != nil && s.srv != nil {
		for c := range s.srv.Sessions() {
			if c.ID() == id {
				ss = c
			}
		}
	}
	if s != nil {
		s.ss, s.posting, s.last = ss, 0, t.now()
	}
	t.mu.Unlock()
	if ss == nil {
		t.drop(id)
		return
	}
	go func() {
		_ = ss.Wait()
		t.drop(id)
	}()
}

// drop forgets id if it is still counted.
func (t *sessionTable) drop(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sessions[id]; s != nil {
		t.remove(s)
	}
}

// begin and end bracket a POST or DELETE of an existing session of key: it is not idle while
// one runs. A request naming a session of another key changes nothing (the SDK refuses it).
func (t *sessionTable) begin(id, key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	if s == nil || s.key != key {
		return false
	}
	s.posting++
	s.last = t.now()
	return true
}

func (t *sessionTable) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sessions[id]; s != nil {
		s.posting--
		s.last = t.now()
	}
}

// newSessionIDKey carries the id admit counted to getServer, which gives it to the session.
type newSessionIDKey struct{}

// serveCounted serves one authenticated request of the streamable handler under the session
// bounds: a POST without a session id asks for a new session and is admitted or refused here.
func (t *sessionTable) serveCounted(w http.ResponseWriter, r *http.Request, key string, next http.Handler) {
	if r.Method == http.MethodPost || r.Method == http.MethodDelete {
		body, ok := readRPCBody(w, r)
		if !ok {
			return
		}
		if id := r.Header.Get(sessionIDHeader); id != "" {
			if t.begin(id, key) {
				defer t.end(id)
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost && opensSession(body) {
			id := rand.Text()
			if ce := t.admit(id, key); ce != nil {
				w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(ce.retry.Seconds()))))
				writeRPCError(w, ce.status, rpcID(body), ce.msg)
				return
			}
			defer t.settle(id)
			r = r.WithContext(context.WithValue(r.Context(), newSessionIDKey{}, id))
		}
	}
	next.ServeHTTP(w, r)
}

// readRPCBody reads a POST body whole (the transport bounds its size and nesting) and puts it
// back for the SDK; a body the transport refused is answered here as a JSON-RPC error.
func readRPCBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Method != http.MethodPost {
		return nil, true
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		status, msg := http.StatusBadRequest, "cannot read the request body"
		if ae := (*annals.Error)(nil); errors.As(err, &ae) {
			msg = ae.Message
			switch ae.Code {
			case annals.EUNAVAILABLE:
				status = http.StatusServiceUnavailable
			case "too_large":
				status = http.StatusRequestEntityTooLarge
			}
		}
		writeRPCError(w, status, nil, msg)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// opensSession reports whether a POST without a session id may leave a session open: an
// initialize request (or anything that is not one plain request, to be safe). The SDK closes the
// session of any other request (server/discover, say) when the request ends.
func opensSession(body []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &m) != nil || m.Method == "initialize"
}

// rpcID is the id of a JSON-RPC request body, or nil (a batch, a notification, not JSON).
func rpcID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m.ID
}

// rpcErrorBody is a JSON-RPC response carrying an error.
type rpcErrorBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeRPCError answers an HTTP request with a JSON-RPC error object: MCP clients show its
// message, whatever the status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(rpcErrorBody{JSONRPC: "2.0", ID: id, Error: rpcError{Code: rpcRefused, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// rpcRefused is the JSON-RPC error code of a request the transport refused (the range
// -32000..-32099 is the implementation's own).
const rpcRefused = -32000

// deadline bounds the work of each request a session receives by timeout (none when 0): a
// streamable HTTP session's calls run in the session's context, which no HTTP request timeout
// reaches.
func deadline(timeout time.Duration) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		if timeout <= 0 {
			return next
		}
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return next(ctx, method, req)
		}
	}
}
