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
	// EstimatedCostUSD is never stored: the history service sets it on the runs it reads
	// (FindChatRuns) when the run recorded tokens but no cost and the pricing table knows its
	// model, the same estimate the usage report makes (docs/USAGE.md).
	EstimatedCostUSD float64 `json:"estimated_cost_usd,omitempty"`
}
