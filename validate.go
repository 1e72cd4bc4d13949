package annals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Limits on what one write may carry. They protect every store from a hostile or broken
// producer; each is documented in docs/FORMAT.md.
const (
	MaxIDBytes          = 256     // chat, entry, run, tenant, user, agent, source and correlation ids
	MaxChannelBytes     = 1024    // an entry's channel
	MaxEntryBytes       = 8 << 20 // text + reasoning + tool fields + metadata of one entry
	MaxAttributes       = 64      // attribute pairs per chat
	MaxAttrKeyBytes     = 128
	MaxAttrValueBytes   = 4096
	MaxTags             = 64
	MaxTagBytes         = 128
	MaxTitleBytes       = 1024
	MaxDescriptionBytes = 64 << 10
	MaxSummaryBytes     = 256 << 10
	MaxSourceIDs        = 64
	MaxBatchEntries     = 10000 // entries per append call
)

// ValidateID checks an identifier: non-empty, valid UTF-8, at most MaxIDBytes, no control
// characters. field names it in the error.
func ValidateID(field, id string) error {
	if id == "" {
		return Errorf(EINVALID, "%s is required", field)
	}
	return validateOptionalID(field, id)
}

func validateOptionalID(field, id string) error {
	if len(id) > MaxIDBytes {
		return Errorf(EINVALID, "%s is %d bytes long (at most %d allowed)", field, len(id), MaxIDBytes)
	}
	return validateLine(field, id)
}

// validateLine checks a single-line string: valid UTF-8 and no control characters.
func validateLine(field, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return Errorf(EINVALID, "%s contains a control character (%U)", field, r)
		}
	}
	return nil
}

func validateText(field, s string, max int) error {
	if len(s) > max {
		return Errorf(EINVALID, "%s is %d bytes long (at most %d allowed)", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	return nil
}

// Validate checks a chat's identity and immutable data before it is created.
func (c *Chat) Validate() error {
	if err := ValidateID("chat.id", c.ID); err != nil {
		return err
	}
	if err := ValidateID("chat.tenant_id", c.TenantID); err != nil {
		return err
	}
	if err := validateOptionalID("chat.user_id", c.UserID); err != nil {
		return err
	}
	if err := validateOptionalID("chat.agent_id", c.AgentID); err != nil {
		return err
	}
	if len(c.Attributes) > MaxAttributes {
		return Errorf(EINVALID, "chat.attributes has %d pairs (at most %d allowed)", len(c.Attributes), MaxAttributes)
	}
	for k, v := range c.Attributes {
		if k == "" {
			return Errorf(EINVALID, "chat.attributes has an empty key")
		}
		if len(k) > MaxAttrKeyBytes {
			return Errorf(EINVALID, "chat.attributes key %.40q is %d bytes long (at most %d allowed)", k, len(k), MaxAttrKeyBytes)
		}
		if err := validateLine("chat.attributes key", k); err != nil {
			return err
		}
		if err := validateText(fmt.Sprintf("chat.attributes[%q]", k), v, MaxAttrValueBytes); err != nil {
			return err
		}
	}
	if err := ValidateTime("chat.created_at", c.CreatedAt); err != nil {
		return err
	}
	if err := ValidateTimePtr("chat.archived_at", c.ArchivedAt); err != nil {
		return err
	}
	if err := ValidateTimePtr("chat.summary_updated_at", c.SummaryUpdatedAt); err != nil {
		return err
	}
	return c.validateMutable()
}

func (c *Chat) validateMutable() error {
	if err := validateText("chat.title", c.Title, MaxTitleBytes); err != nil {
		return err
	}
	if err := validateText("chat.description", c.Description, MaxDescriptionBytes); err != nil {
		return err
	}
	if err := validateText("chat.summary", c.Summary, MaxSummaryBytes); err != nil {
		return err
	}
	return ValidateTags(c.Tags)
}

// ValidateTags checks a tag list: at most MaxTags tags, each non-empty, single-line, at most
// MaxTagBytes.
func ValidateTags(tags []string) error {
	if len(tags) > MaxTags {
		return Errorf(EINVALID, "tags has %d values (at most %d allowed)", len(tags), MaxTags)
	}
	for i, t := range tags {
		field := fmt.Sprintf("tags[%d]", i)
		if t == "" {
			return Errorf(EINVALID, "%s is empty", field)
		}
		if len(t) > MaxTagBytes {
			return Errorf(EINVALID, "%s is %d bytes long (at most %d allowed)", field, len(t), MaxTagBytes)
		}
		if err := validateLine(field, t); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks an update's values.
func (u *ChatUpdate) Validate() error {
	if u.Title != nil {
		if err := validateText("title", *u.Title, MaxTitleBytes); err != nil {
			return err
		}
	}
	if u.Description != nil {
		if err := validateText("description", *u.Description, MaxDescriptionBytes); err != nil {
			return err
		}
	}
	if u.Summary != nil {
		if err := validateText("summary", *u.Summary, MaxSummaryBytes); err != nil {
			return err
		}
	}
	if u.Tags != nil {
		return ValidateTags(*u.Tags)
	}
	return nil
}

// Validate checks an entry before it is appended. Seq is ignored (the store assigns it).
func (e *Entry) Validate() error {
	if err := ValidateID("entry.id", e.ID); err != nil {
		return err
	}
	if _, err := ParseEntryKind(string(e.Kind)); err != nil {
		return Errorf(EINVALID, "entry.kind: %s", ErrorMessage(err))
	}
	if size := e.Size(); size > MaxEntryBytes {
		return Errorf(EINVALID, "entry %q is %d bytes (at most %d allowed per entry)", e.ID, size, MaxEntryBytes)
	}
	if err := validateOptionalID("entry.run_id", e.RunID); err != nil {
		return err
	}
	if err := validateOptionalID("entry.correlation_id", e.CorrelationID); err != nil {
		return err
	}
	if len(e.Channel) > MaxChannelBytes {
		return Errorf(EINVALID, "entry.channel is %d bytes long (at most %d allowed)", len(e.Channel), MaxChannelBytes)
	}
	if err := validateLine("entry.channel", e.Channel); err != nil {
		return err
	}
	if len(e.SourceIDs) > MaxSourceIDs {
		return Errorf(EINVALID, "entry.source_ids has %d values (at most %d allowed)", len(e.SourceIDs), MaxSourceIDs)
	}
	for i, s := range e.SourceIDs {
		if err := ValidateID(fmt.Sprintf("entry.source_ids[%d]", i), s); err != nil {
			return err
		}
	}
	if err := validateText("entry.text", e.Text, MaxEntryBytes); err != nil {
		return err
	}
	if err := validateText("entry.reasoning", e.Reasoning, MaxEntryBytes); err != nil {
		return err
	}
	if err := ValidateTime("entry.time", e.Time); err != nil {
		return err
	}
	if err := validateTokens("entry.input_tokens", e.InputTokens); err != nil {
		return err
	}
	if err := validateTokens("entry.output_tokens", e.OutputTokens); err != nil {
		return err
	}
	if len(e.Metadata) > 0 && !isJSONObject(e.Metadata) {
		return Errorf(EINVALID, "entry.metadata must be a JSON object")
	}
	switch {
	case e.Kind == KindTool && e.Tool == nil:
		return Errorf(EINVALID, "entry.tool is required for a tool entry (name, arguments, result, outcome)")
	case e.Kind != KindTool && e.Tool != nil:
		return Errorf(EINVALID, "entry.tool is only allowed on a tool entry, not on kind %q", e.Kind)
	case e.Tool != nil:
		return e.Tool.validate()
	}
	return nil
}

func (t *ToolCall) validate() error {
	if err := ValidateID("entry.tool.name", t.Name); err != nil {
		return err
	}
	if err := validateOptionalID("entry.tool.call_id", t.CallID); err != nil {
		return err
	}
	if len(t.Arguments) > 0 && !json.Valid(t.Arguments) {
		return Errorf(EINVALID, "entry.tool.arguments is not valid JSON")
	}
	if err := validateText("entry.tool.arguments", string(t.Arguments), MaxEntryBytes); err != nil {
		return err
	}
	if err := validateText("entry.tool.result", t.Result, MaxEntryBytes); err != nil {
		return err
	}
	if t.Outcome != "" {
		if _, err := ParseOutcome(string(t.Outcome)); err != nil {
			return Errorf(EINVALID, "entry.tool.outcome: %s", ErrorMessage(err))
		}
	}
	return nil
}

// Validate checks a run before it is recorded.
func (r *Run) Validate() error {
	if err := ValidateID("run.id", r.ID); err != nil {
		return err
	}
	if err := ValidateID("run.chat_id", r.ChatID); err != nil {
		return err
	}
	if _, err := ParseRunStatus(string(r.Status)); err != nil {
		return Errorf(EINVALID, "run.status: %s", ErrorMessage(err))
	}
	if _, err := ParseRunKind(string(r.Kind)); err != nil {
		return Errorf(EINVALID, "run.kind: %s", ErrorMessage(err))
	}
	if err := validateOptionalID("run.model", r.Model); err != nil {
		return err
	}
	if err := validateRunTokens(r); err != nil {
		return err
	}
	if err := validateCost("run.cost_usd", r.CostUSD); err != nil {
		return err
	}
	if err := ValidateTime("run.started_at", r.StartedAt); err != nil {
		return err
	}
	if err := ValidateTimePtr("run.ended_at", r.EndedAt); err != nil {
		return err
	}
	if r.EndedAt != nil && !r.StartedAt.IsZero() && r.EndedAt.Before(r.StartedAt) {
		return Errorf(EINVALID, "run.ended_at is before run.started_at")
	}
	return nil
}

// Validate checks that exactly one truncation point is set.
func (p TruncatePoint) Validate() error {
	n := 0
	if p.EntryID != "" {
		n++
	}
	if p.SourceID != "" {
		n++
	}
	if p.Seq != 0 {
		n++
	}
	if n != 1 || p.Seq < 0 {
		return Errorf(EINVALID, "a truncation needs exactly one of entry_id, source_id or a positive seq")
	}
	if p.EntryID != "" {
		return ValidateID("truncate.entry_id", p.EntryID)
	}
	if p.SourceID != "" {
		return ValidateID("truncate.source_id", p.SourceID)
	}
	return nil
}

// isJSONObject checks validity with json.Valid (no allocation of a decoded map, since this runs
// on every captured entry) and that the value is an object.
func isJSONObject(raw json.RawMessage) bool {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{' && utf8.Valid(raw) && json.Valid(raw)
}

// validateRunTokens checks a run's token figures: each in range, and the cache's part of the
// input no larger than the input (a source that counts cache tokens apart from the prompt must
// add them to input_tokens, as docs/FORMAT.md says).
func validateRunTokens(r *Run) error {
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"run.input_tokens", r.InputTokens}, {"run.output_tokens", r.OutputTokens},
		{"run.cache_read_tokens", r.CacheReadTokens}, {"run.cache_creation_tokens", r.CacheCreationTokens},
		{"run.context_tokens", r.ContextTokens},
	} {
		if err := validateTokens(f.name, f.n); err != nil {
			return err
		}
	}
	if r.CacheReadTokens+r.CacheCreationTokens > r.InputTokens {
		return Errorf(EINVALID, "run.cache_read_tokens + run.cache_creation_tokens is %d, more than run.input_tokens %d (the cache's tokens are part of the input)",
			r.CacheReadTokens+r.CacheCreationTokens, r.InputTokens)
	}
	return nil
}
