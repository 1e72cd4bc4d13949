package httpapi_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/httpapi"
	"github.com/annals-dev/annals/sqlite"
)

// countingKeys counts the key lookups the server makes.
type countingKeys struct {
	annals.KeyStore
	finds atomic.Int64
}

func (c *countingKeys) FindKeyByHash(ctx context.Context, hash []byte) (*annals.APIKey, error) {
	c.finds.Add(1)
	return c.KeyStore.FindKeyByHash(ctx, hash)
}

// fromAddr is an HTTP client whose connections come from the loopback address ip.
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

func getWith(t *testing.T, c *http.Client, url, key string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/history", strings.NewReader(`{"op":"list"}`))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var eb httpapi.ErrorBody
	_ = json.NewDecoder(res.Body).Decode(&eb)
	return res.StatusCode, res.Header, eb.Error.Message
}

func TestFailedAuthenticationsAreLimitedPerAddress(t *testing.T) {
	keys := &countingKeys{}
	var warm, cold string
	e := newEnv(t, func(db *sqlite.DB) {
		keys.KeyStore = db
		warm = mustKey(t, db, member("A", "u", "", annals.ScopeUser))
		cold = mustKey(t, db, member("A", "v", "", annals.ScopeUser))
	}, func(c *httpapi.Config) { c.Keys = keys; c.AuthFailures = 3 })
	attacker := fromAddr("127.0.0.1")
	if status, _, _ := getWith(t, attacker, e.url, warm); status != http.StatusOK {
		t.Fatalf("the warm key before any failure: %d", status)
	}
	wrong, _ := annals.NewKeySecret()
	for i := range 3 {
		if status, _, _ := getWith(t, attacker, e.url, wrong); status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401 within the allowance", i+1, status)
		}
	}
	before := keys.finds.Load()
	for _, key := range []string{wrong, "", "not-a-key"} {
		status, h, msg := getWith(t, attacker, e.url, key)
		retry, err := strconv.Atoi(h.Get("Retry-After"))
		if status != http.StatusTooManyRequests || err != nil || retry < 1 || retry > 60 || !strings.Contains(msg, "at most 3 a minute") || !strings.Contains(msg, "--auth-failures") {
			t.Fatalf("key %q past the allowance: %d, Retry-After %q, %q", key, status, h.Get("Retry-After"), msg)
		}
	}
	if n := keys.finds.Load() - before; n != 0 {
		t.Errorf("a limited address still cost %d key lookups", n)
	}
	// Valid keys from the limited address keep working, the one used before and one never seen.
	for name, key := range map[string]string{"warm": warm, "cold": cold} {
		if status, _, msg := getWith(t, attacker, e.url, key); status != http.StatusOK {
			t.Errorf("the %s valid key from the limited address: %d %s", name, status, msg)
		}
	}
	// Another address is not limited by this one's failures.
	if status, _, _ := getWith(t, fromAddr("127.0.0.2"), e.url, wrong); status != http.StatusUnauthorized {
		t.Errorf("a wrong key from another address: %d, want 401", status)
	}
}

func TestTheAuthLimitCanBeTurnedOff(t *testing.T) {
	e := newEnv(t, func(db *sqlite.DB) { mustKey(t, db, member("A", "u", "", annals.ScopeUser)) },
		func(c *httpapi.Config) { c.AuthFailures = -1 })
	wrong, _ := annals.NewKeySecret()
	for i := range 2 * httpapi.DefaultAuthFailures {
		if status, _, _ := getWith(t, http.DefaultClient, e.url, wrong); status != http.StatusUnauthorized {
			t.Fatalf("failure %d with the limit off: %d", i+1, status)
		}
	}
}
