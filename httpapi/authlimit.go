package httpapi

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/annals-dev/annals"
)

// Defaults of the failed-authentication limit.
const (
	// DefaultAuthFailures is how many failed authentications one address may make per minute
	// (and in a burst) before it is answered 429.
	DefaultAuthFailures = 10
	// authAddrs bounds how many addresses the limit remembers; an address whose allowance is
	// whole again needs no memory and is forgotten first.
	authAddrs = 10000
	// knownKeysFor is how long the set of active key hashes is reused before it is read again.
	knownKeysFor = 5 * time.Second
)

// CodeTooManyRequests: the caller's address made too many failed authentications; retry after
// the Retry-After header's seconds.
const CodeTooManyRequests = "too_many_requests"

// authLimit counts failed authentications per source address in a token bucket: each failure
// takes a token, and an address with none left is limited until one grows back. A request from
// a limited address is still served when it carries an active key: the key is looked up in the
// set of active key hashes (read from the key store at most every knownKeysFor), so a limited
// address costs the store nothing per request and valid keys are never slowed.
type authLimit struct {
	perMinute int // 0: no limit
	now       func() time.Time

	mu    sync.Mutex
	addrs map[string]*rate.Limiter

	known   map[string]bool // active key hashes
	knownAt time.Time
}

func newAuthLimit(perMinute int) *authLimit {
	return &authLimit{perMinute: perMinute, now: time.Now, addrs: map[string]*rate.Limiter{}}
}

// sourceOf names the address a request came from for the limit: the peer's IP, and for IPv6
// its /64, the block one host is usually given.
func sourceOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// wait returns how long addr must wait before it may fail again, 0 when it is not limited.
func (l *authLimit) wait(addr string) time.Duration {
	if l.perMinute <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.addrs[addr]
	if lim == nil {
		return 0
	}
	tokens := lim.TokensAt(l.now())
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) * float64(time.Minute) / float64(l.perMinute))
}

// failed takes a token from addr's bucket.
func (l *authLimit) failed(addr string) {
	if l.perMinute <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	lim := l.addrs[addr]
	if lim == nil {
		if len(l.addrs) >= authAddrs {
			l.forget(now)
		}
		lim = rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
		l.addrs[addr] = lim
	}
	lim.AllowN(now, 1)
}

// forget drops the addresses whose bucket is full again; if none is, one at random, so the map
// stays bounded whatever the number of addresses failing.
func (l *authLimit) forget(now time.Time) {
	for a, lim := range l.addrs {
		if lim.TokensAt(now) >= float64(l.perMinute) {
			delete(l.addrs, a)
		}
	}
	for a := range l.addrs {
		if len(l.addrs) < authAddrs {
			break
		}
		delete(l.addrs, a)
	}
}

// isKnown reports whether hash is an active key's, from the set read at most every knownKeysFor.
func (l *authLimit) isKnown(ctx context.Context, keys annals.KeyStore, hash []byte) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.known == nil || l.now().Sub(l.knownAt) >= knownKeysFor {
		all, err := keys.ListKeys(ctx)
		if err != nil {
			return false, err
		}
		l.known = make(map[string]bool, len(all))
		for _, k := range all {
			if !k.Revoked() {
				l.known[string(k.Hash)] = true
			}
		}
		l.knownAt = l.now()
	}
	return l.known[string(hash)], nil
}

// limitedError is the 429 of a limited address; the caller sets Retry-After from wait.
func (l *authLimit) limitedError(w http.ResponseWriter, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return httpError(CodeTooManyRequests, fmt.Sprintf("too many failed authentications from this address (at most %d a minute, the server's --auth-failures): retry in %d s with a valid API key", l.perMinute, secs))
}
