package markdown

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/annals-dev/annals"
)

// formatVersion is written into every chat comment, so that a future layout can be told apart
// and an old parser refuses it instead of misreading it.
const formatVersion = 1

// Marker lines. Each comment fills a whole line: prefix, JSON object, suffix.
const (
	chatPrefix   = "<!-- annals:chat "
	runPrefix    = "<!-- annals:run "
	entryPrefix  = "<!-- annals:entry "
	endPrefix    = "<!-- annals:end "
	markerSuffix = " -->"
)

// Export is a parsed Markdown export: the chat's metadata, its runs and its entries, in
// document order. Runs is nil for a document without run comments: a chat without runs, or an
// export written before runs were carried exactly, whose runs table Parse does not guess at.
type Export struct {
	Chat    annals.Chat
	Runs    []*annals.Run
	Entries []*annals.Entry
}

// chatComment is the JSON of the <!-- annals:chat --> line. Description and summary are content
// parts written after the header, so only their byte lengths (and whether they were fenced) are
// here; everything else that Parse returns comes from this object.
type chatComment struct {
	V                 int               `json:"v"`
	ID                string            `json:"id"`
	TenantID          string            `json:"tenant_id"`
	UserID            string            `json:"user_id,omitempty"`
	AgentID           string            `json:"agent_id,omitempty"`
	Attributes        annals.Attributes `json:"attributes,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	LastActivity      time.Time         `json:"last_activity"`
	Status            annals.RunStatus  `json:"status,omitempty"`
	Title             string            `json:"title,omitempty"`
	Tags              []string          `json:"tags,omitempty"`
	Pinned            bool              `json:"pinned,omitempty"`
	ArchivedAt        *time.Time        `json:"archived_at,omitempty"`
	SummaryUpdatedAt  *time.Time        `json:"summary_updated_at,omitempty"`
	Totals            annals.Totals     `json:"totals"`
	DescriptionBytes  int64             `json:"description_bytes,omitempty"`
	DescriptionFenced bool              `json:"description_fenced,omitempty"`
	SummaryBytes      int64             `json:"summary_bytes,omitempty"`
	SummaryFenced     bool              `json:"summary_fenced,omitempty"`
}

// entryComment is the JSON of an <!-- annals:entry --> line. Text, reasoning, tool arguments
// and tool result follow the heading in that order; their byte lengths are here.
type entryComment struct {
	ID string `json:"id"`
	// ChatID is set only when the entry's chat id differs from the chat's, which keeps the
	// common case short and still returns exactly what was rendered.
	ChatID        *string          `json:"chat_id,omitempty"`
	Seq           int64            `json:"seq"`
	Kind          annals.EntryKind `json:"kind"`
	RunID         string           `json:"run_id,omitempty"`
	SourceIDs     []string         `json:"source_ids,omitempty"`
	Channel       string           `json:"channel,omitempty"`
	CorrelationID string           `json:"correlation_id,omitempty"`
	Time          time.Time        `json:"time"`
	InputTokens   int64            `json:"input_tokens,omitempty"`
	OutputTokens  int64            `json:"output_tokens,omitempty"`
	// Metadata holds the metadata's exact bytes as a string: embedding it as a JSON value would
	// let the encoder compact and re-escape it. MetadataBase64 is used instead when the bytes
	// are not valid UTF-8, which a JSON string cannot carry.
	Metadata       *string      `json:"metadata,omitempty"`
	MetadataBase64 []byte       `json:"metadata_base64,omitempty"`
	Tool           *toolComment `json:"tool,omitempty"`
	TextBytes      int64        `json:"text_bytes,omitempty"`
	TextFenced     bool         `json:"text_fenced,omitempty"`
	ReasoningBytes int64        `json:"reasoning_bytes,omitempty"`
}

// toolComment is the tool part of an entry comment.
type toolComment struct {
	Name    string         `json:"name"`
	CallID  string         `json:"call_id,omitempty"`
	Outcome annals.Outcome `json:"outcome,omitempty"`
	// ArgumentsBytes is the length of the arguments as shown. ArgumentsIndented says they are
	// shown indented and must be compacted to get the original bytes back.
	ArgumentsBytes    int64 `json:"arguments_bytes,omitempty"`
	ArgumentsIndented bool  `json:"arguments_indented,omitempty"`
	ResultBytes       int64 `json:"result_bytes,omitempty"`
}

// endComment is the JSON of the final <!-- annals:end --> line.
type endComment struct {
	Entries int `json:"entries"`
}

// encodeComment marshals v for use inside an HTML comment. In JSON, '<', '>' and '-' can only
// appear inside strings, except the sign of a negative number, which is never followed by
// another '-'. Escaping '<', '>' and every '-' followed by '-' therefore keeps the JSON valid
// and equal in meaning while making "-->", "--" and "<!--" impossible, whatever the strings
// hold. encoding/json escapes '<' and '>' already; doing it here too keeps the guarantee local.
func encodeComment(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n := bytes.Count(raw, []byte("-")) + bytes.Count(raw, []byte("<")) + bytes.Count(raw, []byte(">"))
	if n == 0 {
		return raw, nil
	}
	out := make([]byte, 0, len(raw)+5*n)
	for i, c := range raw {
		switch {
		case c == '<':
			out = append(out, `\u003c`...)
		case c == '>':
			out = append(out, `\u003e`...)
		case c == '-' && i+1 < len(raw) && raw[i+1] == '-':
			out = append(out, `\u002d`...)
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// decodeComment unmarshals one comment's JSON object strictly: unknown fields and trailing data
// mean the line was not written by this version of Render, and guessing would risk reading the
// content parts at the wrong lengths.
func decodeComment(data []byte, v any) error {
	if len(data) == 0 || data[0] != '{' {
		return errors.New("want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}
