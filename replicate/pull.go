package replicate

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/annals-dev/annals"
)

// The way back (docs/REPLICATION.md, "The change feed and the mirror"): a Puller follows a
// remote's change feed into a mirror database — a read-only copy of the tenant's collection that
// can be searched with the remote out of reach — and, when given this host's own database, takes
// back the curation of this host's own chats by the conflict rule.

// PullConfig configures a Puller.
type PullConfig struct {
	// Endpoint and Key reach the remote (an operator key of its tenant).
	Endpoint string
	Key      string
	// Mirror is the mirror database.
	Mirror annals.MirrorStore
	// Host, when set, is this host's own database: the feed's curation of chats it holds is
	// applied to them by the conflict rule (annals.CurationTaker).
	Host annals.CurationTaker
	// Limit is the chats asked per page (0: the remote's default).
	Limit int
	// Poll is how long Follow waits between passes once caught up (0: DefaultPullPoll).
	Poll   time.Duration
	HTTP   *http.Client
	Logger *slog.Logger
}

// DefaultPullPoll is how often a following pull asks the remote again once caught up.
const DefaultPullPoll = 2 * time.Second

// Puller follows a remote's change feed.
type Puller struct {
	cfg PullConfig
	c   *client
}

// NewPuller returns a Puller for cfg.
func NewPuller(cfg PullConfig) *Puller {
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 5 * DefaultTimeout}
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPullPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Puller{cfg: cfg, c: &client{endpoint: cfg.Endpoint, key: cfg.Key, http: cfg.HTTP}}
}

// PullReport is what a pass did.
type PullReport struct {
	Remote   string `json:"remote"`
	TenantID string `json:"tenant_id"`
	// Pages and Chats are the pages read and the chats written to the mirror; Deleted the
	// tombstones among them.
	Pages   int `json:"pages"`
	Chats   int `json:"chats"`
	Deleted int `json:"deleted"`
	// Curated is how many of this host's own chats took a curation back (with a Host).
	Curated int `json:"curated"`
	// Cursor is the mirror's cursor after the pass.
	Cursor int64 `json:"cursor"`
}

// PullOnce follows the feed from the mirror's cursor until the remote has no more, applying
// each page to the mirror in one transaction with its cursor (a pass killed midway resumes
// from the last page applied). progress, when set, is called after each page.
func (p *Puller) PullOnce(ctx context.Context, progress func(*PullReport)) (*PullReport, error) {
	rep := &PullReport{Remote: p.cfg.Endpoint}
	st, err := p.cfg.Mirror.MirrorState(ctx)
	if err != nil {
		return nil, err
	}
	if st != nil {
		if st.Remote != p.cfg.Endpoint {
			return nil, annals.Errorf(annals.ECONFLICT, "this mirror follows %s, not %s: pull into another mirror (--mirror PATH)", st.Remote, p.cfg.Endpoint)
		}
		rep.Cursor, rep.TenantID = st.Cursor, st.TenantID
	}
	for {
		page, err := p.page(ctx, rep.Cursor)
		if err != nil {
			return rep, err
		}
		if len(page.Changes) == 0 && st != nil {
			return rep, nil
		}
		next := &annals.MirrorState{Remote: p.cfg.Endpoint, TenantID: page.TenantID, Cursor: page.Cursor}
		if err := p.cfg.Mirror.ApplyMirror(ctx, next, page.Changes); err != nil {
			return rep, err
		}
		st = next
		if err := p.takeCuration(ctx, page.Changes, rep); err != nil {
			return rep, err
		}
		rep.Pages++
		rep.TenantID, rep.Cursor = page.TenantID, page.Cursor
		for _, c := range page.Changes {
			rep.Chats++
			if c.Deleted {
				rep.Deleted++
			}
		}
		if progress != nil {
			progress(rep)
		}
		if !page.More {
			return rep, nil
		}
	}
}

// page reads one page of the feed, turning the remote's refusals into errors that name it.
func (p *Puller) page(ctx context.Context, after int64) (*annals.ReplicaFeed, error) {
	page, a, err := p.c.feed(ctx, after, p.cfg.Limit)
	if err != nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "cannot reach the remote %s: %v", p.cfg.Endpoint, err)
	}
	switch {
	case a.status == http.StatusOK:
		return page, nil
	case a.status == http.StatusUnauthorized || a.status == http.StatusForbidden:
		return nil, annals.Errorf(annals.EFORBIDDEN, "the remote %s refused the API key %s (%d %s: %s); pulling needs an operator key of the remote's tenant (%s)",
			p.cfg.Endpoint, Fingerprint(p.cfg.Key), a.status, a.code, a.message, KeyEnv)
	default:
		return nil, annals.Errorf(annals.EUNAVAILABLE, "the remote %s answered %d %s: %s", p.cfg.Endpoint, a.status, a.code, a.message)
	}
}

// takeCuration applies the page's curation of this host's own chats (with a Host).
func (p *Puller) takeCuration(ctx context.Context, changes []*annals.FeedChat, rep *PullReport) error {
	if p.cfg.Host == nil {
		return nil
	}
	for _, c := range changes {
		if c.Deleted || c.Chat == nil || len(c.Stamps) == 0 {
			continue
		}
		took, err := p.cfg.Host.TakeCuration(ctx, c.Chat, c.Stamps)
		if err != nil {
			return err
		}
		if took {
			rep.Curated++
		}
	}
	return nil
}

// Follow pulls until ctx ends: a pass, then, once caught up, another after the poll. A pass
// that fails (the remote down) is logged and tried again after the poll; nothing is lost, the
// mirror resumes from its cursor. progress is called after each page.
func (p *Puller) Follow(ctx context.Context, progress func(*PullReport)) error {
	for {
		if _, err := p.PullOnce(ctx, progress); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if annals.ErrorCode(err) != annals.EUNAVAILABLE {
				return err
			}
			p.cfg.Logger.Warn("pull failed; trying again", "remote", p.cfg.Endpoint, "error", annals.ErrorMessage(err))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(p.cfg.Poll):
		}
	}
}
