package providerhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/annals-dev/annals"
)

// Retry defaults: three attempts in all, waits of 1 s then 2 s (doubling), never more than 30 s.
const (
	DefaultRetries     = 2
	DefaultBaseBackoff = time.Second
	DefaultMaxBackoff  = 30 * time.Second
	// DefaultConcurrency bounds the requests one client has in flight at once.
	DefaultConcurrency = 4
)

// Client posts JSON to one provider endpoint with retries and a concurrency limit. Retried:
// transport failures (not a cancelled context), 408, 409, 429, 500, 502, 503, 504 and 529
// (Anthropic's "overloaded"). Each wait doubles from BaseBackoff, capped at MaxBackoff; a
// Retry-After (or retry-after-ms) header sets the wait when it is longer, and when the provider
// asks for more than MaxBackoff the client gives up at once rather than wait past the cap or
// come back too early. Backoff is deterministic (no jitter): the concurrency limit, not jitter,
// is what keeps one server's callers from stampeding a provider.
type Client struct {
	HTTP *http.Client
	// What names the provider in messages ("summarization provider").
	What string
	// Endpoint is the URL posted to; Display is it as messages may show it (DisplayURL).
	Endpoint, Display string
	// APIKey is scrubbed from any provider message that echoes it.
	APIKey string
	// Retries is how many times a retryable failure is retried; 0 means none.
	Retries int
	// BaseBackoff and MaxBackoff shape the waits; 0 means the defaults.
	BaseBackoff, MaxBackoff time.Duration
	// MaxResponse bounds the bytes read from one answer.
	MaxResponse int64
	// Sleep waits d or until ctx ends; nil uses a timer. Tests record the waits through it.
	Sleep func(ctx context.Context, d time.Duration) error

	sem chan struct{}
}

// Retries turns a configured retry count into the client's: 0 means DefaultRetries, a negative
// count means none.
func Retries(configured int) int {
	switch {
	case configured == 0:
		return DefaultRetries
	case configured < 0:
		return 0
	}
	return configured
}

// NewLimit returns a concurrency limit of n requests in flight (n <= 0: DefaultConcurrency),
// shared by every Client given it.
func NewLimit(n int) chan struct{} {
	if n <= 0 {
		n = DefaultConcurrency
	}
	return make(chan struct{}, n)
}

// WithLimit sets the client's concurrency limit (from NewLimit); nil means no limit.
func (c *Client) WithLimit(sem chan struct{}) *Client {
	c.sem = sem
	return c
}

// PostJSON sends body as JSON with headers and returns the 2xx answer's body. Every failure is an
// *annals.Error naming the endpoint and never the key (see StatusError, TransportError).
func (c *Client) PostJSON(ctx context.Context, headers http.Header, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, annals.Internal("encode "+c.What+" request", err)
	}
	for attempt := 0; ; attempt++ {
		raw, wait, err := c.once(ctx, headers, payload)
		if err == nil {
			return raw, nil
		}
		if wait < 0 || attempt >= c.Retries {
			return nil, err
		}
		if d := c.backoff(attempt); d > wait {
			wait = d
		}
		if wait > c.maxBackoff() {
			return nil, err // the provider asked for longer than we wait
		}
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, err
		}
	}
}

// once makes one attempt under the concurrency limit. wait is -1 when the failure is not worth
// retrying, else the wait the provider asked for (0 when it did not say).
func (c *Client) once(ctx context.Context, headers http.Header, payload []byte) ([]byte, time.Duration, error) {
	if c.sem != nil {
		select {
		case c.sem <- struct{}{}:
			defer func() { <-c.sem }()
		case <-ctx.Done():
			return nil, -1, TransportError(ctx, c.What, c.Display, ctx.Err())
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, -1, annals.Internal("build "+c.What+" request", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, vs := range headers {
		req.Header[k] = vs
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, retryable(ctx), TransportError(ctx, c.What, c.Display, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.MaxResponse+1))
	if err != nil {
		return nil, retryable(ctx), TransportError(ctx, c.What, c.Display, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		serr := StatusError(c.What, c.Display, resp.StatusCode, raw, c.APIKey)
		if !retryableStatus(resp.StatusCode) {
			return nil, -1, serr
		}
		return nil, RetryAfter(resp.Header, time.Now()), serr
	}
	if int64(len(raw)) > c.MaxResponse {
		return nil, -1, BadResponse(c.What, c.Display, fmt.Sprintf("larger than %d bytes", c.MaxResponse), nil)
	}
	return raw, 0, nil
}

// retryable: a transport failure is worth retrying unless our own context ended.
func retryable(ctx context.Context) time.Duration {
	if ctx.Err() != nil {
		return -1
	}
	return 0
}

func retryableStatus(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable,
		http.StatusGatewayTimeout, 529:
		return true
	}
	return false
}

// RetryAfter reads the wait a provider asked for: retry-after-ms (OpenAI), else Retry-After in
// seconds or as an HTTP date. 0 when absent or unreadable; never negative.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 1e9 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func (c *Client) backoff(attempt int) time.Duration {
	d := c.BaseBackoff
	if d <= 0 {
		d = DefaultBaseBackoff
	}
	for i := 0; i < attempt && d < c.maxBackoff(); i++ {
		d *= 2
	}
	return min(d, c.maxBackoff())
}

func (c *Client) maxBackoff() time.Duration {
	if c.MaxBackoff <= 0 {
		return DefaultMaxBackoff
	}
	return c.MaxBackoff
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
