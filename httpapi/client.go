package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/ingest"
	"github.com/annals-dev/annals/queryview"
)

// Client calls an annals server. It implements annals.HistoryService (each typed call sent as
// the op envelope that means it), annals.CaptureStore, and the query view, so code written
// against the library runs unchanged against a server. Errors are *annals.Error with the
// server's code and message; a server that cannot be reached is unavailable.
type Client struct {
	// Remote sends the envelope's operations to POST /v1/history.
	envelope.Remote
	base string
	key  string
	// HTTP is the client used for requests; NewClient sets one without a global timeout (each
	// call is bounded by its context and the server's request timeout).
	HTTP *http.Client
	// MaxBatchBytes bounds the body of one POST /v1/capture; Capture splits a larger batch into
	// several requests (each one transaction). It must stay below the server's --max-body.
	MaxBatchBytes int
}

var _ annals.CaptureStore = (*Client)(nil)

// DefaultClientBatchBytes is MaxBatchBytes by default: half the server's default body limit.
const DefaultClientBatchBytes = DefaultMaxBodyBytes / 2

// NewClient returns a client for the server at baseURL (http://host:port), authenticating with
// key (empty for a server in local mode).
func NewClient(baseURL, key string) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, annals.Errorf(annals.EINVALID, "server URL %q must be http://host:port or https://host:port", baseURL)
	}
	if key != "" && !annals.WellFormedKeySecret(key) {
		return nil, annals.Errorf(annals.EINVALID, "the API key is not one 'annals keys create' made (it starts with %s)", annals.KeySecretPrefix)
	}
	c := &Client{
		base:          strings.TrimRight(u.String(), "/"),
		key:           key,
		HTTP:          &http.Client{Transport: http.DefaultTransport},
		MaxBatchBytes: DefaultClientBatchBytes,
	}
	c.Remote = envelope.Remote{Send: func(ctx context.Context, req *envelope.Request, out any) error {
		return c.postJSON(ctx, "/v1/history", req, out)
	}}
	return c, nil
}

// URL returns the server's base URL.
func (c *Client) URL() string { return c.base }

// call sends one request and decodes a 2xx JSON answer into out (when non-nil).
func (c *Client) call(ctx context.Context, method, path string, body []byte, contentType string, out any) error {
	resp, err := c.send(ctx, method, path, body, contentType)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("the server's answer to %s %s is not valid JSON", method, path), Err: err}
	}
	return nil
}

// send sends one request; a non-2xx answer becomes its *annals.Error.
func (c *Client) send(ctx context.Context, method, path string, body []byte, contentType string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, annals.Internal("build request", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: "the request was cancelled or timed out", Err: err}
		}
		return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: fmt.Sprintf("cannot reach the annals server at %s: %v", c.base, unwrapAll(err)), Err: err}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, responseError(method, path, resp)
}

// responseError turns an error answer into the *annals.Error it carries.
func responseError(method, path string, resp *http.Response) error {
	cause := fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	var eb ErrorBody
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, &eb) != nil || eb.Error.Code == "" {
		// POST /query answers errors in the lanius view's shape.
		var qe QueryError
		if json.Unmarshal(b, &qe) == nil && qe.Code != "" {
			return &annals.Error{Code: qe.Code, Message: qe.Error, Err: cause}
		}
		return &annals.Error{Code: codeOfStatus(resp.StatusCode), Message: fmt.Sprintf("the server answered %s to %s %s", resp.Status, method, path), Err: cause}
	}
	err := &annals.Error{Code: eb.Error.Code, Message: eb.Error.Message, Err: cause}
	if missing := missingOnServer(method, path, resp, eb.Error, err); missing != nil {
		return missing
	}
	if eb.Error.Index != nil {
		return &annals.BatchError{Index: *eb.Error.Index, Err: err}
	}
	return err
}

// missingOnServer is the error of an answer saying the server lacks what this client asked for —
// no such route, or (from a server of another API version) no such op — naming both API
// versions; nil for any other answer.
func missingOnServer(method, path string, resp *http.Response, d ErrorDetail, cause error) error {
	server := resp.Header.Get(annals.APIVersionHeader)
	if resp.StatusCode == http.StatusNotFound && strings.HasPrefix(d.Message, "no route ") {
		return annals.MissingOnServer(server, "route "+method+" "+path, cause)
	}
	var op string
	if d.Code == annals.EINVALID && server != annals.APIVersion {
		if _, err := fmt.Sscanf(d.Message, "unknown op %q", &op); err == nil {
			return annals.MissingOnServer(server, fmt.Sprintf("op %q", op), cause)
		}
	}
	return nil
}

func codeOfStatus(status int) string {
	for _, code := range []string{annals.EINVALID, CodeUnauthorized, annals.EFORBIDDEN, annals.ENOTFOUND, CodeMethodNotAllowed, annals.ECONFLICT, CodeTooLarge, annals.EUNAVAILABLE} {
		if StatusOf(code) == status {
			return code
		}
	}
	return annals.EINTERNAL
}

func (c *Client) postJSON(ctx context.Context, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return annals.Errorf(annals.EINVALID, "cannot encode the request: %v", err)
	}
	return c.call(ctx, http.MethodPost, path, b, "application/json", out)
}

// Export downloads a chat (GET /v1/sessions/{id}/export) as Markdown (format "markdown") or as
// an ExportDocument in JSON (format "json"). A download the server cut short (it drops the
// connection when the export fails after its first byte) is an unavailable error, never a
// truncated document.
func (c *Client) Export(ctx context.Context, chatID, format, scope string) ([]byte, error) {
	q := url.Values{}
	if format != "" {
		q.Set("format", format)
	}
	if scope != "" {
		q.Set("scope", scope)
	}
	path := "/v1/sessions/" + url.PathEscape(chatID) + "/export" + encodeQuery(q)
	resp, err := c.send(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &annals.Error{Code: annals.EUNAVAILABLE, Message: "the export was cut short", Err: err}
	}
	return b, nil
}

// Health calls GET /healthz.
func (c *Client) Health(ctx context.Context) (*HealthAnswer, error) {
	var out HealthAnswer
	return &out, c.call(ctx, http.MethodGet, "/healthz", nil, "", &out)
}

// Query sends a query view request (*queryview.AgentsRequest, *SessionsRequest,
// *TranscriptRequest, *ConversationRequest or *SearchRequest; its kind is set for you) to
// POST /query and returns the matching *queryview.*Answer.
func (c *Client) Query(ctx context.Context, req any) (any, error) {
	var (
		out  any
		kind string
	)
	switch r := req.(type) {
	case *queryview.AgentsRequest:
		kind, out = queryview.KindAgents, &queryview.AgentsAnswer{}
		cp := *r
		cp.Kind, req = kind, &cp
	case *queryview.SessionsRequest:
		kind, out = queryview.KindSessions, &queryview.SessionsAnswer{}
		cp := *r
		cp.Kind, req = kind, &cp
	case *queryview.TranscriptRequest:
		kind, out = queryview.KindTranscript, &queryview.TranscriptAnswer{}
		cp := *r
		cp.Kind, req = kind, &cp
	case *queryview.ConversationRequest:
		kind, out = queryview.KindConversation, &queryview.ConversationAnswer{}
		cp := *r
		cp.Kind, req = kind, &cp
	case *queryview.SearchRequest:
		kind, out = queryview.KindSearch, &queryview.SearchAnswer{}
		cp := *r
		cp.Kind, req = kind, &cp
	default:
		return nil, annals.Errorf(annals.EINVALID, "Query takes a *queryview.AgentsRequest, SessionsRequest, TranscriptRequest, ConversationRequest or SearchRequest, not %T", req)
	}
	if err := c.postJSON(ctx, "/query", req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Ingest posts input in the capture format (JSON Lines) to POST /v1/ingest, where it is
// validated whole and then applied like `annals ingest`. The whole input must fit the server's
// body limit; Capture (used by ingest.Ingest with a Client as its store) has no such limit.
func (c *Client) Ingest(ctx context.Context, input io.Reader) (*ingest.Report, error) {
	b, err := io.ReadAll(input)
	if err != nil {
		return nil, fmt.Errorf("read input: %w", err)
	}
	var out ingest.Report
	return &out, c.call(ctx, http.MethodPost, "/v1/ingest", b, "application/x-ndjson", &out)
}

// The capture-format records (docs/FORMAT.md) the single-op routes take.
type chatRecord struct {
	ID          string            `json:"id"`
	TenantID    string            `json:"tenant_id,omitempty"`
	UserID      string            `json:"user_id,omitempty"`
	AgentID     string            `json:"agent_id,omitempty"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	CreatedAt   *time.Time        `json:"created_at,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
}

type entryRecord struct {
	ID            string           `json:"id"`
	Kind          string           `json:"kind"`
	RunID         string           `json:"run_id,omitempty"`
	SourceIDs     []string         `json:"source_ids,omitempty"`
	Channel       string           `json:"channel,omitempty"`
	CorrelationID string           `json:"correlation_id,omitempty"`
	Time          *time.Time       `json:"time,omitempty"`
	Text          string           `json:"text,omitempty"`
	Reasoning     string           `json:"reasoning,omitempty"`
	Tool          *annals.ToolCall `json:"tool,omitempty"`
	InputTokens   int64            `json:"input_tokens,omitempty"`
	OutputTokens  int64            `json:"output_tokens,omitempty"`
	Metadata      json.RawMessage  `json:"metadata,omitempty"`
}

type runRecord struct {
	ID           string     `json:"id"`
	ChatID       string     `json:"chat_id"`
	Status       string     `json:"status"`
	Model        string     `json:"model,omitempty"`
	StartedAt    *time.Time `json:"started_at,omitempty"`
	EndedAt      *time.Time `json:"ended_at,omitempty"`
	InputTokens  int64      `json:"input_tokens,omitempty"`
	OutputTokens int64      `json:"output_tokens,omitempty"`
	CostUSD      float64    `json:"cost_usd,omitempty"`
}

func encodeQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
