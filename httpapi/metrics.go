package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The metrics are written in the Prometheus text exposition format (version 0.0.4) by hand:
// three families do not justify client_golang and its dependency tree (docs/ARCHITECTURE.md).

// latencyBuckets are the upper bounds, in seconds, of the request duration histogram.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type routeStats struct {
	codes   map[int]uint64
	buckets []uint64 // cumulative counts are computed when written
	count   uint64
	sum     float64
}

type metrics struct {
	mu     sync.Mutex
	routes map[string]*routeStats
	start  time.Time
}

func newMetrics() *metrics {
	return &metrics{routes: map[string]*routeStats{}, start: time.Now()}
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	secs := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.routes[route]
	if rs == nil {
		rs = &routeStats{codes: map[int]uint64{}, buckets: make([]uint64, len(latencyBuckets))}
		m.routes[route] = rs
	}
	rs.codes[status]++
	rs.count++
	rs.sum += secs
	for i, b := range latencyBuckets {
		if secs <= b {
			rs.buckets[i]++
			break
		}
	}
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	var b strings.Builder
	s.metrics.write(&b)

	n, err := s.counts(r.Context())
	if err == nil {
		fmt.Fprintf(&b, "# HELP annals_chats Chats stored, across every tenant.\n# TYPE annals_chats gauge\nannals_chats %d\n", n.Chats)
		if n.Entries >= 0 {
			fmt.Fprintf(&b, "# HELP annals_entries Transcript entries stored, across every tenant.\n# TYPE annals_entries gauge\nannals_entries %d\n", n.Entries)
		}
		writeQueryEmbeddings(&b, n.QueryEmbeddings)
	} else {
		s.log.Warn("metrics: cannot count the store", "err", err)
	}
	up := 0
	if err == nil {
		up = 1
	}
	fmt.Fprintf(&b, "# HELP annals_store_up Whether the last count of the store succeeded.\n# TYPE annals_store_up gauge\nannals_store_up %d\n", up)
	ro := 0
	if s.cfg.ReadOnly {
		ro = 1
	}
	fmt.Fprintf(&b, "# HELP annals_read_only Whether the server refuses writes.\n# TYPE annals_read_only gauge\nannals_read_only %d\n", ro)
	s.writeReplication(r.Context(), &b)

	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, b.String())
	return nil
}

// counts returns the store sizes, counted by the history through the caller's door (Entries is
// -1 when the store cannot count them cheaply), and what query embeddings spent.
func (s *Server) counts(ctx context.Context) (*history.Counts, error) {
	if s.cfg.Stats == nil {
		return nil, errors.New("no stats service to count the store")
	}
	c := history.CallerFromContext(ctx)
	if c == nil {
		c = history.For(s.svc, nil, history.Access{ReadOnly: true})
	}
	return c.Stats(s.cfg.Stats).CountAll(ctx)
}

// writeQueryEmbeddings writes what the embeddings of queries spent at a provider, per model:
// they serve no chat, so no chat's runs hold them (docs/PROVIDERS.md, "Token and cost accounting").
func writeQueryEmbeddings(w io.Writer, usage []history.QueryEmbeddingUsage) {
	if len(usage) == 0 {
		return
	}
	fmt.Fprintln(w, "# HELP annals_query_embedding_requests_total Requests to the embedding provider that embedded search and related queries.")
	fmt.Fprintln(w, "# TYPE annals_query_embedding_requests_total counter")
	for _, u := range usage {
		fmt.Fprintf(w, "annals_query_embedding_requests_total{model=%s} %d\n", label(u.Model), u.Calls)
	}
	fmt.Fprintln(w, "# HELP annals_query_embedding_input_tokens_total Input tokens the embedding provider reported for search and related queries.")
	fmt.Fprintln(w, "# TYPE annals_query_embedding_input_tokens_total counter")
	for _, u := range usage {
		fmt.Fprintf(w, "annals_query_embedding_input_tokens_total{model=%s} %d\n", label(u.Model), u.InputTokens)
	}
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	routes := make([]string, 0, len(m.routes))
	for r := range m.routes {
		routes = append(routes, r)
	}
	sort.Strings(routes)

	fmt.Fprintln(w, "# HELP annals_http_requests_total HTTP requests served, by route and status code.")
	fmt.Fprintln(w, "# TYPE annals_http_requests_total counter")
	for _, route := range routes {
		rs := m.routes[route]
		codes := make([]int, 0, len(rs.codes))
		for c := range rs.codes {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		method, path := splitRoute(route)
		for _, c := range codes {
			fmt.Fprintf(w, "annals_http_requests_total{method=%s,route=%s,code=\"%d\"} %d\n", label(method), label(path), c, rs.codes[c])
		}
	}
	fmt.Fprintln(w, "# HELP annals_http_request_duration_seconds Time to serve an HTTP request, by route.")
	fmt.Fprintln(w, "# TYPE annals_http_request_duration_seconds histogram")
	for _, route := range routes {
		rs := m.routes[route]
		method, path := splitRoute(route)
		labels := fmt.Sprintf("method=%s,route=%s", label(method), label(path))
		var cum uint64
		for i, b := range latencyBuckets {
			cum += rs.buckets[i]
			fmt.Fprintf(w, "annals_http_request_duration_seconds_bucket{%s,le=\"%s\"} %d\n", labels, strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "annals_http_request_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, rs.count)
		fmt.Fprintf(w, "annals_http_request_duration_seconds_sum{%s} %s\n", labels, strconv.FormatFloat(rs.sum, 'g', -1, 64))
		fmt.Fprintf(w, "annals_http_request_duration_seconds_count{%s} %d\n", labels, rs.count)
	}
	fmt.Fprintf(w, "# HELP annals_uptime_seconds Seconds since the server started.\n# TYPE annals_uptime_seconds gauge\nannals_uptime_seconds %.0f\n", time.Since(m.start).Seconds())
}

// splitRoute splits a mux pattern "POST /v1/history" into method and path.
func splitRoute(route string) (string, string) {
	if m, p, ok := strings.Cut(route, " "); ok {
		return m, p
	}
	return "", route
}

// label quotes a label value as the text format wants: backslash, quote and newline escaped.
func label(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}

// ReplicationGauges is the push worker's state as /metrics shows it (replicate.Pusher):
// operations queued, lanes quarantined, operations given up by `replicate retry --drop`, and
// how long the oldest queued operation has waited.
type ReplicationGauges interface {
	ReplicationGauges(ctx context.Context) (pending, quarantined, givenUp int, lag time.Duration, err error)
}

// writeReplication writes the annals_replication_* gauges of a host with a remote.
func (s *Server) writeReplication(ctx context.Context, w io.Writer) {
	if s.cfg.Replication == nil {
		return
	}
	pending, quarantined, givenUp, lag, err := s.cfg.Replication.ReplicationGauges(ctx)
	if err != nil {
		s.log.Warn("metrics: cannot read the replication state", "err", annals.ErrorDetail(err))
		return
	}
	fmt.Fprintf(w, "# HELP annals_replication_pending_ops Operations queued for the remote.\n# TYPE annals_replication_pending_ops gauge\nannals_replication_pending_ops %d\n", pending)
	fmt.Fprintf(w, "# HELP annals_replication_quarantined_lanes Lanes stopped on a permanent refusal by the remote.\n# TYPE annals_replication_quarantined_lanes gauge\nannals_replication_quarantined_lanes %d\n", quarantined)
	fmt.Fprintf(w, "# HELP annals_replication_given_up_ops Operations given up by 'annals replicate retry --drop': the remote never receives them.\n# TYPE annals_replication_given_up_ops gauge\nannals_replication_given_up_ops %d\n", givenUp)
	fmt.Fprintf(w, "# HELP annals_replication_lag_seconds How long the oldest queued operation has waited.\n# TYPE annals_replication_lag_seconds gauge\nannals_replication_lag_seconds %s\n", strconv.FormatFloat(lag.Seconds(), 'f', 3, 64))
}
