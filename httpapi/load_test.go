package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/corpus"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/sqlite"
)

// loadEnv is a server over a generated corpus, with a member key of the corpus' first tenant
// reading at tenant scope.
func loadEnv(tb testing.TB, entries int) (*env, string) {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := corpus.Write(&buf, corpus.Options{Seed: 1, Entries: entries, Tenants: 1}, nil); err != nil {
		tb.Fatal(err)
	}
	var first struct {
		TenantID string `json:"tenant_id"`
	}
	line, _ := bufio.NewReader(bytes.NewReader(buf.Bytes())).ReadBytes('\n')
	if err := json.Unmarshal(line, &first); err != nil || first.TenantID == "" {
		tb.Fatalf("corpus first line %s: %v", line, err)
	}
	var key string
	e := newEnv(tb, func(db *sqlite.DB) {
		if _, err := ingest.Ingest(context.Background(), db, bytes.NewReader(buf.Bytes()), ingest.Options{}); err != nil {
			tb.Fatal(err)
		}
		key = mustKey(tb, db, annals.Principal{TenantID: first.TenantID, Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	})
	return e, key
}

// loadBodies are the requests of the load run: a list page, and searches of terms planted at
// known frequencies (corpus.Markers): 1 entry in 1,000 and 1 in 100.
var loadBodies = map[string][]string{
	"list":          {`{"op":"list","limit":50}`},
	"search-scarce": {`{"op":"search","query":"` + corpus.ScarceTerm + `","limit":20}`},
	"search-medium": {`{"op":"search","query":"` + corpus.MediumTerm + `","limit":20}`},
}

var loadOrder = []string{"list", "search-scarce", "search-medium"}

func post(client *http.Client, url, key, body string) error {
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// TestLoopbackLoad measures requests per second and latency percentiles of list and search over
// loopback, with concurrent keep-alive clients. It is a measurement, not a check: it runs only
// with ANNALS_LOAD set, e.g.
//
//	ANNALS_LOAD=1 ANNALS_LOAD_ENTRIES=100000 ANNALS_LOAD_SECONDS=10 ANNALS_LOAD_CLIENTS=8 \
//	  go test ./httpapi -run TestLoopbackLoad -v -timeout 30m
func TestLoopbackLoad(t *testing.T) {
	if os.Getenv("ANNALS_LOAD") == "" {
		t.Skip("set ANNALS_LOAD=1 to measure loopback throughput")
	}
	entries := envInt("ANNALS_LOAD_ENTRIES", 20000)
	seconds := envInt("ANNALS_LOAD_SECONDS", 5)
	clients := envInt("ANNALS_LOAD_CLIENTS", 4)
	start := time.Now()
	e, key := loadEnv(t, entries)
	t.Logf("corpus of %d entries ingested in %s; GOMAXPROCS %d, %d clients, %ds per route", entries, time.Since(start).Round(time.Millisecond), runtime.GOMAXPROCS(0), clients, seconds)
	for _, name := range loadOrder {
		bodies := loadBodies[name]
		// Warm-up: each body once.
		for _, b := range bodies {
			if err := post(http.DefaultClient, e.url+"/v1/history", key, b); err != nil {
				t.Fatal(err)
			}
		}
		var (
			mu   sync.Mutex
			lats []time.Duration
			errs int
			wg   sync.WaitGroup
		)
		deadline := time.Now().Add(time.Duration(seconds) * time.Second)
		began := time.Now()
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
				var mine []time.Duration
				bad := 0
				for i := w; time.Now().Before(deadline); i++ {
					t0 := time.Now()
					if err := post(client, e.url+"/v1/history", key, bodies[i%len(bodies)]); err != nil {
						bad++
						continue
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lats = append(lats, mine...)
				errs += bad
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(began)
		slices.Sort(lats)
		pct := func(p float64) time.Duration { return lats[min(len(lats)-1, int(float64(len(lats))*p))] }
		t.Logf("%-13s %6d requests in %.1fs: %7.0f req/s, p50 %7.2f ms, p99 %7.2f ms, errors %d",
			name, len(lats), elapsed.Seconds(), float64(len(lats))/elapsed.Seconds(),
			float64(pct(0.50).Microseconds())/1000, float64(pct(0.99).Microseconds())/1000, errs)
		if errs > 0 {
			t.Errorf("%s: %d failed requests", name, errs)
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkListLoopback and BenchmarkSearchLoopback measure one request over loopback with
// parallel keep-alive clients (-cpu sets how many), on a small corpus.
func BenchmarkListLoopback(b *testing.B)   { benchLoopback(b, "list") }
func BenchmarkSearchLoopback(b *testing.B) { benchLoopback(b, "search-scarce") }

func benchLoopback(b *testing.B, name string) {
	e, key := loadEnv(b, 5000)
	bodies := loadBodies[name]
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		i := 0
		for pb.Next() {
			if err := post(client, e.url+"/v1/history", key, bodies[i%len(bodies)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
