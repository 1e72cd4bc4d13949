package replicate

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/annals-dev/annals"
)

// faultProxy is a reverse proxy on 127.0.0.1:0 between a host and its remote. fault, when set,
// sees each request (its body read) and may answer in the remote's place; down drops every
// connection; duplicate forwards each replicate request twice; replay re-sends every earlier
// replicate request after each new one (reordered, stale deliveries).
type faultProxy struct {
	t      *testing.T
	target *url.URL
	rp     *httputil.ReverseProxy
	url    string

	mu        sync.Mutex
	down      bool
	duplicate bool
	replay    bool
	sent      [][]byte
	fault     func(chatID string, n int) (status int, header http.Header, body string)
	counts    map[string]int
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, target: u, rp: httputil.NewSingleHostReverseProxy(u), counts: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: p}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + ln.Addr().String()
	return p
}

func (p *faultProxy) set(fn func(p *faultProxy)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn(p)
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	down, dup, replay, fault := p.down, p.duplicate, p.replay, p.fault
	chatID := ""
	if r.URL.Path == "/v1/replicate" {
		var req annals.ReplicateRequest
		if json.Unmarshal(body, &req) == nil && len(req.Ops) > 0 {
			chatID = req.Ops[0].ChatID
		}
		p.counts[chatID]++
	}
	n := p.counts[chatID]
	var stale [][]byte
	if replay && chatID != "" {
		stale = append(stale, p.sent...)
		p.sent = append(p.sent, body)
	}
	p.mu.Unlock()
	if down {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	if fault != nil && chatID != "" {
		if status, header, answer := fault(chatID, n); status != 0 {
			for k, v := range header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, answer)
			return
		}
	}
	if dup && chatID != "" {
		p.forward(r, body, io.Discard)
	}
	p.rp.ServeHTTP(w, p.request(r, body))
	for _, b := range stale {
		p.forward(r, b, io.Discard)
	}
}

func (p *faultProxy) request(r *http.Request, body []byte) *http.Request {
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	return out
}

// forward sends a copy of the request straight to the remote, dropping the answer.
func (p *faultProxy) forward(r *http.Request, body []byte, sink io.Writer) {
	req, err := http.NewRequest(r.Method, p.target.String()+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		p.t.Error(err)
		return
	}
	req.Header = r.Header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Error(err)
		return
	}
	_, _ = io.Copy(sink, res.Body)
	res.Body.Close()
}
