package replicate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
)

// maxAnswerBytes bounds what is read of a remote's answer.
const maxAnswerBytes = 8 << 20

// client speaks to a remote's replication routes.
type client struct {
	endpoint string
	key      string
	http     *http.Client
}

// answer is one remote answer, classified.
type answer struct {
	status int
	// retryAfter is the remote's Retry-After, when it sent one.
	retryAfter time.Duration
	result     *annals.ReplicateResult
	// code and message are the error the remote answered (from either body shape).
	code, message string
}

// errorBody is the remote's error body for a whole request.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		OpID    string `json:"op_id"`
	} `json:"error"`
}

func (c *client) post(ctx context.Context, path string, body any) (*answer, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+path, bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.key)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("read answer: %w", err)
	}
	a := &answer{status: res.StatusCode, retryAfter: retryAfter(res.Header.Get("Retry-After"), time.Now())}
	var eb errorBody
	if json.Unmarshal(raw, &eb) == nil {
		a.code, a.message = eb.Error.Code, eb.Error.Message
	}
	return a, raw, nil
}

// replicate sends one lane's operations.
func (c *client) replicate(ctx context.Context, ops []*annals.ReplicationOp) (*answer, error) {
	a, raw, err := c.post(ctx, "/v1/replicate", annals.ReplicateRequest{Ops: ops})
	if err != nil {
		return nil, err
	}
	var res annals.ReplicateResult
	if json.Unmarshal(raw, &res) == nil && res.Head != nil {
		a.result = &res
	}
	return a, nil
}

// heads asks the remote's heads of the named lanes (none: only checks the key).
func (c *client) heads(ctx context.Context, chatIDs, idsOf []string) (*annals.ReplicaHeads, *answer, error) {
	if chatIDs == nil {
		chatIDs = []string{}
	}
	a, raw, err := c.post(ctx, "/v1/replicate/heads", annals.ReplicaHeadsRequest{ChatIDs: chatIDs, IDsOf: idsOf})
	if err != nil {
		return nil, nil, err
	}
	if a.status != http.StatusOK {
		return nil, a, nil
	}
	var h annals.ReplicaHeads
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, a, fmt.Errorf("the remote's heads are not JSON: %w", err)
	}
	return &h, a, nil
}

// retryAfter reads a Retry-After value: seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// permanent reports an answer that refuses a lane for good: the operation is invalid, conflicts
// with the remote's lane, or is too large. Everything else — 401/403 (a key can be fixed), 404
// (a server being upgraded), 408, 429, 5xx, out_of_order — is retried.
func (a *answer) permanent() bool {
	code := a.code
	if a.result != nil && a.result.Error != nil {
		code = a.result.Error.Code
	}
	if code == annals.EOUTOFORDER {
		return false
	}
	switch a.status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// maxFeedAnswerBytes bounds a feed page: about 8 MiB of entries, but a page holds at least one
// chat whole, however large.
const maxFeedAnswerBytes = 256 << 20

// feed asks the remote for a page of its change feed after the cursor.
func (c *client) feed(ctx context.Context, after int64, limit int) (*annals.ReplicaFeed, *answer, error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"/v1/replicate/feed?"+q.Encode(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	res, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxFeedAnswerBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("read answer: %w", err)
	}
	a := &answer{status: res.StatusCode, retryAfter: retryAfter(res.Header.Get("Retry-After"), time.Now())}
	if a.status != http.StatusOK {
		var eb errorBody
		if json.Unmarshal(raw, &eb) == nil {
			a.code, a.message = eb.Error.Code, eb.Error.Message
		}
		return nil, a, nil
	}
	var f annals.ReplicaFeed
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, a, fmt.Errorf("the remote's feed page is not JSON (or over %d bytes): %w", maxFeedAnswerBytes, err)
	}
	return &f, a, nil
}
