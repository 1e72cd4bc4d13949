package annals

import (
	"time"
)

// Attributes are a chat's immutable creation attributes: client-supplied string pairs such as
// source=claude-code or repository=github.com/o/r. They are provenance hints, not trusted facts.
type Attributes map[string]string

// Chat is one conversation (a session), addressed by a string id. Tenant, user, agent and
// attributes are fixed at creation; title, description, tags, pinned, archived and summary are
// the mutable human layer; status and totals are derived by the store.
type Chat struct {
	ID         string     `json:"id"`
	TenantID   string     `json:"tenant_id"`
	UserID     string     `json:"user_id,omitempty"`
	AgentID    string     `json:"agent_id,omitempty"`
	Attributes Attributes `json:"attributes,omitempty"`

	// CreatedAt is given by the producer (an importer knows when a chat began) or stamped by the
	// store at creation.
	CreatedAt time.Time `json:"created_at"`
	// LastActivity is the latest of CreatedAt, the times of the chat's entries and the start and
	// end of its runs. It follows the conversation's own clock, not the time of capture, so
	// importing an old transcript does not make it look recent. A truncation leaves it as is.
	LastActivity time.Time `json:"last_activity"`
	// Status is derived from the chat's runs: running if any run is running, else the status of
	// the newest run (latest started_at; among equal starts, the one recorded last); empty for a
	// chat with no runs.
	Status RunStatus `json:"status,omitempty"`

	Title string `json:"title,omitempty"`
	// TitleGenerated marks a title the background digest generated (docs/PROVIDERS.md): a
	// rename by a person clears it, and a digest replaces only a generated title (or none).
	TitleGenerated   bool       `json:"title_generated,omitempty"`
	Description      string     `json:"description,omitempty"`
	Tags             []string   `json:"tags,omitempty"`
	Pinned           bool       `json:"pinned"`
	ArchivedAt       *time.Time `json:"archived_at,omitempty"`
	Summary          string     `json:"summary,omitempty"`
	SummaryUpdatedAt *time.Time `json:"summary_updated_at,omitempty"`

	Totals Totals `json:"totals"`

	// Revision is the transcript's revision, kept by the store: raised by the number of entries
	// each append adds and each truncation removes, never lowered, so two reads with the same
	// revision saw the same transcript (a rewind plus as many new entries is a new revision,
	// though the entry count is the same). Local to a store; not part of any wire format.
	Revision int64 `json:"-"`

	// Incarnation is given by the store when the chat is created and changes when a chat is
	// deleted and its id created again; writes carry it (see ChatRef) so that they land only on
	// the chat their caller read. It is not part of any wire format.
	Incarnation int64 `json:"-"`
}

// Totals are a chat's counters, maintained by the store in the same transaction as the rows.
type Totals struct {
	Runs         int64   `json:"runs"`
	Entries      int64   `json:"entries"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// SameImmutable reports whether other carries the same immutable data as c: tenant, user,
// agent and attributes. Creating a chat again with the same immutable data is a no-op;
// different immutable data is a conflict.
func (c *Chat) SameImmutable(other *Chat) bool {
	if c.TenantID != other.TenantID || c.UserID != other.UserID || c.AgentID != other.AgentID {
		return false
	}
	if len(c.Attributes) != len(other.Attributes) {
		return false
	}
	for k, v := range c.Attributes {
		if ov, ok := other.Attributes[k]; !ok || ov != v {
			return false
		}
	}
	return true
}

// ChatFilter selects chats. Owner is mandatory and always applied in SQL; every other field
// is optional. A nil pointer means "no constraint".
type ChatFilter struct {
	Owner Owner

	ID *string
	// IDs, when not nil, keeps only chats whose id is one of these (an empty list keeps none):
	// search by meaning asks which of its candidates pass the other filters.
	IDs []string
	// IDPrefix keeps chats whose id starts with it, or whose id holds it right after a ':' (the
	// source tool's own id inside an imported chat's id: "7f3c" finds "claude-code:7f3c2a10-...").
	// Compared byte for byte, case-sensitively.
	IDPrefix      string
	Status        *RunStatus
	From          *time.Time // last_activity >= From
	To            *time.Time // last_activity <= To
	Tag           *string    // exact tag match
	TitleContains *string    // case-insensitive substring of the title
	Agent         *string
	// Agents keeps chats of any of these agents; Tags keeps chats carrying every one of these
	// tags (the search language's agent: and tag: filters).
	Agents []string
	Tags   []string
	// Attributes: each entry must match; an AttrMatch with Contains set matches a
	// case-sensitive substring, otherwise the exact value.
	Attributes      map[string]AttrMatch
	PinnedOnly      bool
	IncludeArchived bool
	// MetaTerms, when set, keeps chats whose title, description, summary or tags contain every
	// term (literal terms through the metadata full-text index, never query syntax).
	MetaTerms []string
	// MetaFields narrows MetaTerms to some of: title, description, summary, tags. Empty means all.
	MetaFields []string

	// Offset and Limit page the result; the store caps Limit at MaxListLimit.
	Offset int
	Limit  int
}

// AttrMatch matches one attribute value: exactly, or by substring when Contains is true.
type AttrMatch struct {
	Value    string
	Contains bool
}

// ChatUpdate changes a chat's mutable metadata. A nil pointer leaves the field unchanged; an
// empty string clears it; an empty Tags slice clears every tag.
type ChatUpdate struct {
	Title       *string
	Description *string
	Tags        *[]string
	Pinned      *bool
	// Archived true sets archived_at to now (if not already archived); false restores.
	Archived *bool
	// Summary sets the summary and stamps summary_updated_at.
	Summary *string
	// TitleGenerated, with Title, stores the title marked as generated (the background digest's,
	// or a replicated or copied generated title); a Title without it is a person's and clears
	// the mark. Transports never set it.
	TitleGenerated bool
}

// List limits.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// EffectiveLimit applies the default and the cap to a requested limit.
func EffectiveLimit(requested, def, max int) int {
	if requested <= 0 {
		return def
	}
	if requested > max {
		return max
	}
	return requested
}
