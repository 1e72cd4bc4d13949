package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/history"
	"github.com/annals-dev/annals/queryview"
)

// handleHistory serves POST /v1/history and its loomcycle alias POST /v1/_history: one op
// envelope, decoded strictly, run by the history service as the caller's principal.
func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) error {
	req, err := envelope.DecodeRequestContext(r.Context(), r.Body)
	if err != nil {
		return err
	}
	out, err := envelope.Dispatch(r.Context(), s.historyFor(r.Context()), req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleQuery serves POST /query, the lanius-style read-only view.
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.View == nil {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "this server has no query view: it was given no view service (view.Service)")
	}
	if r.Context().Value(remoteReadsKey{}) != nil {
		return annals.Errorf(annals.ENOTIMPLEMENTED, "remote query mode: this server's local callers read the remote collection at %s, and the query view answers from this database only; ask POST /v1/history, or serve with --local-history", s.cfg.LocalReadsFrom)
	}
	body := io.Reader(r.Body)
	if r.ContentLength < 0 {
		// As the reference reads a query: exactly Content-Length bytes, none when the header is
		// absent (a chunked body), so such a request is one with an empty body.
		body = http.NoBody
	}
	out, err := queryview.NewCached(s.viewFor(r.Context()), s.queryCache).Query(r.Context(), body)
	if err != nil {
		// The reference's error answer, {"ok": false, "error": "<message>"}, with annals's code
		// beside it; the status is the usual one for the code (400 for a bad query).
		d := errorDetail(err)
		if d.Code == annals.EINTERNAL {
			s.log.Error("internal error", "method", r.Method, "route", r.Pattern, "err", annals.ErrorDetail(err))
		}
		qe := QueryError{OK: false, Error: d.Message, Code: d.Code}
		if r := (*queryview.Refusal)(nil); errors.As(err, &r) {
			qe.Kind, qe.Kinds = r.Kind, r.Kinds
		}
		return writeJSON(w, StatusOf(d.Code), qe)
	}
	a, ok := out.(appender)
	if !ok {
		return writeJSON(w, http.StatusOK, out)
	}
	buf, _ := s.answers.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	b, err := a.AppendJSON((*buf)[:0])
	if err != nil {
		return annals.Internal("encode response", err)
	}
	writeBody(w, http.StatusOK, append(b, '\n'))
	// Written: the connection's writer holds none of it. A buffer grown past what a page of the
	// largest answers needs is left to the collector rather than kept.
	if cap(b) <= maxKeptAnswer {
		*buf = b[:0]
		s.answers.Put(buf)
	}
	return nil
}

// maxKeptAnswer is the largest answer buffer the server keeps for the next answer.
const maxKeptAnswer = 4 << 20

// QueryError is the body of a POST /query error: the reference view's {"ok": false, "error":
// "<message>"}, with the kind asked for (once it is a known one) or, for an unknown kind, the
// kinds there are, as the reference answers them, plus the annals error code.
type QueryError struct {
	OK    bool     `json:"ok"`
	Kind  string   `json:"kind,omitempty"`
	Error string   `json:"error"`
	Kinds []string `json:"kinds,omitempty"`
	Code  string   `json:"code"`
}

// HealthAnswer is the answer of GET /healthz (the lanius discovery shape).
type HealthAnswer struct {
	OK    bool     `json:"ok"`
	Kinds []string `json:"kinds"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, HealthAnswer{OK: true, Kinds: queryview.Kinds()})
}

// query reads the URL query, refusing parameters the route does not take.
func query(r *http.Request, allowed ...string) (url.Values, error) {
	q := r.URL.Query()
	for k := range q {
		if !containsString(allowed, k) {
			return nil, annals.Errorf(annals.EINVALID, "unknown query parameter %q (want: %s)", k, strings.Join(allowed, ", "))
		}
		if len(q[k]) > 1 {
			return nil, annals.Errorf(annals.EINVALID, "query parameter %q is given %d times (give it once)", k, len(q[k]))
		}
	}
	return q, nil
}

// ExportDocument is the JSON export of one chat: its metadata, runs and whole transcript.
type ExportDocument struct {
	Chat *annals.Chat `json:"chat"`
	// Format is "json", as in the CLI's export, so that annals import knows the file.
	Format  string          `json:"format"`
	Runs    []*annals.Run   `json:"runs"`
	Entries []*annals.Entry `json:"entries"`
}

// handleExport serves GET /v1/sessions/{id}/export?format=markdown|json[&scope=S] as a download.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r, "format", "scope")
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	format := q.Get("format")
	if format == "" {
		format = history.FormatMarkdown
	}
	ctx := r.Context()
	chat := annals.ChatSelector{Scope: annals.Scope(q.Get("scope")), ID: id}
	switch format {
	case history.FormatMarkdown:
		res, err := s.historyFor(ctx).GetChat(ctx, annals.GetParams{Chat: chat, Format: annals.FormatMarkdown})
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", "text/markdown; charset=utf-8")
		// A transcript can hold HTML: a browser must never sniff the download into a page.
		h.Set("X-Content-Type-Options", "nosniff")
		// Named after the chat the service resolved the id to (a prefix or the source's own id
		// names a file after the whole id).
		h.Set("Content-Disposition", attachment(res.Chat.ID, ".md"))
		h.Set("Content-Length", fmt.Sprint(len(res.Markdown)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(res.Markdown))
		return nil
	case history.FormatJSON:
		p := annals.GetParams{Chat: chat, Limit: history.MaxGetLimit}
		// The first page is read before anything is written, so a chat outside scope is the
		// usual 404, not a broken download.
		res, err := s.historyFor(ctx).GetChat(ctx, p)
		if err != nil {
			return err
		}
		// The runs, the later pages and the file name by the full id the first page resolved.
		chat.ID = res.Chat.ID
		p.Chat = chat
		runs, err := s.historyFor(ctx).FindChatRuns(ctx, chat)
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Disposition", attachment(chat.ID, ".json"))
		w.WriteHeader(http.StatusOK)
		chat, _ := json.Marshal(res.Chat)
		if runs == nil {
			runs = []*annals.Run{}
		}
		rb, _ := json.Marshal(runs)
		fmt.Fprintf(w, `{"chat":%s,"format":"json","runs":%s,"entries":[`, chat, rb)
		first := true
		for {
			for _, e := range res.Entries {
				b, err := json.Marshal(e)
				if err != nil {
					return annals.Internal("encode entry", err)
				}
				if !first {
					_, _ = w.Write([]byte(","))
				}
				first = false
				_, _ = w.Write(b)
			}
			if !res.HasMore {
				break
			}
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			p.Cursor = res.NextCursor
			if res, err = s.historyFor(ctx).GetChat(ctx, p); err != nil {
				return err // writeError aborts the connection: the client sees the cut
			}
		}
		_, _ = w.Write([]byte("]}\n"))
		return nil
	}
	return annals.Errorf(annals.EINVALID, "unknown format %q (want markdown or json)", format)
}

// attachment builds a Content-Disposition header naming the file after the chat id, keeping
// only characters that are safe in a file name and a header.
func attachment(id, ext string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), ".")
	if name == "" {
		name = "chat"
	}
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf(`attachment; filename="%s%s"`, name, ext)
}

// RunsAnswer is the answer of GET /v1/sessions/{id}/runs.
type RunsAnswer struct {
	Runs []*annals.Run `json:"runs"`
}

// handleRuns serves GET /v1/sessions/{id}/runs[?scope=S]: a chat's runs, oldest first.
func (s *Server) handleRuns(w http.ResponseWriter, r *http.Request) error {
	q, err := query(r, "scope")
	if err != nil {
		return err
	}
	runs, err := s.historyFor(r.Context()).FindChatRuns(r.Context(), annals.ChatSelector{Scope: annals.Scope(q.Get("scope")), ID: r.PathValue("id")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, RunsAnswer{Runs: runs})
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
