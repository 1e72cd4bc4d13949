package annals

import "time"

// RunStatus is the status of one run, and (derived) of a chat.
type RunStatus string

// Run statuses.
const (
	StatusRunning       RunStatus = "running"
	StatusAwaitingInput RunStatus = "awaiting_input"
	StatusCompleted     RunStatus = "completed"
	StatusFailed        RunStatus = "failed"
	StatusCancelled     RunStatus = "cancelled"
)

// RunStatuses lists every valid run status.
var RunStatuses = []RunStatus{StatusRunning, StatusAwaitingInput, StatusCompleted, StatusFailed, StatusCancelled}

// ParseRunStatus validates s as a run status.
func ParseRunStatus(s string) (RunStatus, error) {
	for _, st := range RunStatuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", Errorf(EINVALID, "unknown status %q (want one of: %s)", s, joinStrings(RunStatuses))
}

// RunKind says whose work a run is. The empty kind is the chat's own work (a model turn or an
// agent run, as producers record them); the others are calls annals itself made for the chat
// (docs/PROVIDERS.md): their model, tokens and cost are recorded against the chat they served
// and count in its totals and the usage report, but they are not the chat's activity: they
// never set its status nor move its last activity (so a digest neither moves a chat up the
// list nor delays its own next idle check).
type RunKind string

// Run kinds.
const (
	// RunKindChat is the chat's own run (the default, written "").
	RunKindChat RunKind = ""
	// RunKindRecap is a summarizer's call for a recap or a background digest of the chat.
	RunKindRecap RunKind = "recap"
	// RunKindEmbed is an embedding provider's call that embedded the chat.
	RunKindEmbed RunKind = "embed"
)

// RunKinds lists every valid run kind.
var RunKinds = []RunKind{RunKindChat, RunKindRecap, RunKindEmbed}

// ParseRunKind validates s as a run kind ("" is the chat's own run).
func ParseRunKind(s string) (RunKind, error) {
	for _, k := range RunKinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", Errorf(EINVALID, "unknown run kind %q (want %q or %q, or none for the chat's own run)", s, RunKindRecap, RunKindEmbed)
}

// Activity says whether a run of this kind is the chat's activity (its status, last activity).
func (k RunKind) Activity() bool { return k == RunKindChat }

// Run is one model turn or agent run inside a chat. Run ids are unique across the whole store,
// not just within a chat. Recording a run again with the same id updates it (an upsert): a run
// is typically recorded as running, then as completed.
type Run struct {
	ID        string     `json:"id"`
	ChatID    string     `json:"chat_id"`
	Status    RunStatus  `json:"status"`
	Model     string     `json:"model,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// InputTokens counts the whole prompt the model processed, cache reads and writes included
	// (as OpenAI counts prompt tokens); CacheReadTokens and CacheCreationTokens are the part of
	// it read from and written to a prompt cache, when the source says so (their sum never
	// exceeds InputTokens). ContextTokens is the size of the context at the run's last model
	// call (its prompt, cache included): a run of several calls sums their input but its
	// context is the last one's. Zero is unknown.
	InputTokens         int64   `json:"input_tokens,omitempty"`
	OutputTokens        int64   `json:"output_tokens,omitempty"`
	CacheReadTokens     int64   `json:"cache_read_tokens,omitempty"`
	CacheCreationTokens int64   `json:"cache_creation_tokens,omitempty"`
	ContextTokens       int64   `json:"context_tokens,omitempty"`
	CostUSD             float64 `json:"cost_usd,omitempty"`
	// Kind is whose work the run is (RunKind); "" is the chat's own. Recording a run again
	// keeps the kind it was first recorded with.
	Kind RunKind `json:"kind,omitempty"`
	// EstimatedCostUSD is never stored: the history service sets it on the runs it reads
	// (FindChatRuns) when the run recorded tokens but no cost and the pricing table knows its
	// model, the same estimate the usage report makes (docs/USAGE.md).
	EstimatedCostUSD float64 `json:"estimated_cost_usd,omitempty"`
}
