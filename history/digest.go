package history

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
)

// Background digests (docs/PROVIDERS.md, "Digests in the background"). This file is the one
// place of their policy: which chat is due (DigestPolicy.Due), how long a failing chat waits
// (DigestPolicy.Backoff), how long a lease lasts. The store keeps the state
// (annals.DigestStore): the revision each digest was computed from, failures, leases.

// Why a chat is due for a digest.
const (
	// DueIdle: never digested, and quiet for DigestPolicy.Idle.
	DueIdle = "idle"
	// DueNewEntries: at least DigestPolicy.MinNewEntries entries changed since its digest.
	DueNewEntries = "new_entries"
	// DueStale: changed since its digest, and the digest is older than DigestPolicy.Stale.
	DueStale = "stale"
)

// The defaults of DigestPolicy.
const (
	DefaultDigestIdle          = 10 * time.Minute
	DefaultDigestMinNewEntries = 8
	DefaultDigestStale         = 12 * time.Hour
	DefaultDigestBackoff       = time.Minute
	DefaultDigestMaxBackoff    = time.Hour
	DefaultDigestLease         = 15 * time.Minute
)

// DigestPolicy says when a chat is due for a digest and how failures wait. Zero fields take
// the defaults above.
type DigestPolicy struct {
	// Idle is how long a never-digested chat must have been quiet (since its last activity).
	Idle time.Duration
	// MinNewEntries is how many entries a digested chat must have gained (or lost) to be due
	// at once.
	MinNewEntries int64
	// Stale is the age after which a digest of a chat that changed at all is refreshed.
	Stale time.Duration
	// Backoff is the wait after a first failure, doubled after each further one, up to
	// MaxBackoff.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Lease is how long a worker holds a chat while it digests it; another worker may take an
	// expired lease (and the first one's digest is then not stored).
	Lease time.Duration
}

// WithDefaults fills the zero fields with the defaults.
func (p DigestPolicy) WithDefaults() DigestPolicy {
	if p.Idle <= 0 {
		p.Idle = DefaultDigestIdle
	}
	if p.MinNewEntries <= 0 {
		p.MinNewEntries = DefaultDigestMinNewEntries
	}
	if p.Stale <= 0 {
		p.Stale = DefaultDigestStale
	}
	if p.Backoff <= 0 {
		p.Backoff = DefaultDigestBackoff
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = DefaultDigestMaxBackoff
	}
	if p.MaxBackoff < p.Backoff {
		p.MaxBackoff = p.Backoff
	}
	if p.Lease <= 0 {
		p.Lease = DefaultDigestLease
	}
	return p
}

// Due says whether a chat is due for a digest at now, and why. A chat waiting out a failure's
// backoff, or held by a live lease, is not due; a chat whose transcript is the digested one
// never is. Otherwise: never digested and idle; or MinNewEntries changed since the digest; or
// changed at all and the digest is older than Stale.
func (p DigestPolicy) Due(st annals.DigestState, now time.Time) (string, bool) {
	p = p.WithDefaults()
	c := st.Chat
	if c == nil || c.Totals.Entries == 0 {
		return "", false
	}
	if st.RetryAt != nil && now.Before(*st.RetryAt) {
		return "", false
	}
	if st.LeaseHolder != "" && st.LeaseUntil != nil && now.Before(*st.LeaseUntil) {
		return "", false
	}
	if st.DigestedRevision < 0 {
		return DueIdle, now.Sub(c.LastActivity) >= p.Idle
	}
	// The revision counts every entry added and every one rewound, so this is how many
	// entries changed since the digest.
	changed := c.Revision - st.DigestedRevision
	if changed < 0 {
		changed = -changed // a state from before revisions were kept, or a store's reset
	}
	switch {
	case changed == 0:
		return "", false
	case changed >= p.MinNewEntries:
		return DueNewEntries, true
	case st.DigestedAt == nil || now.Sub(*st.DigestedAt) >= p.Stale:
		return DueStale, true
	}
	return "", false
}

// BackoffAfter is the wait after the n-th failure in a row: Backoff, doubled for each further
// failure, never more than MaxBackoff.
func (p DigestPolicy) BackoffAfter(failures int) time.Duration {
	p = p.WithDefaults()
	d := p.Backoff
	for i := 1; i < failures && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// DigestProgress counts what a digest pass did.
type DigestProgress struct {
	// Checked counts the chats looked at (changed since their digest).
	Checked int `json:"checked"`
	// Digested counts the digests stored.
	Digested int `json:"digested"`
	// Titled counts the generated titles stored with them.
	Titled int `json:"titled"`
	// Changed counts digests not stored because the transcript changed while they were
	// computed (the chat stays due).
	Changed int `json:"changed"`
	// Busy counts chats another worker held.
	Busy int `json:"busy"`
	// Failed counts digests that failed (the chat waits its backoff; its summary is untouched).
	Failed int `json:"failed"`
}

// digestPage is how many states one store read brings.
const digestPage = 100

// DigestDue digests every chat that is due under p now (annals digest --once, and each pass
// of the worker of annals serve), as holder: the name of this worker in the leases. It is
// maintenance of the database owner, not an op: it ignores scopes. progress, when set, is
// called after each chat.
func (s *Service) DigestDue(ctx context.Context, holder string, p DigestPolicy, progress func(DigestProgress)) (DigestProgress, error) {
	return s.digestWalk(ctx, holder, p, nil, func(st annals.DigestState) bool {
		_, due := p.Due(st, s.now())
		return due
	}, progress)
}

// DigestSince refreshes the digest of every chat active since since whose transcript changed
// since its digest, whatever the policy's thresholds and backoffs (the scheduled recap, and
// annals digest --since). Chats another worker holds are left to it.
func (s *Service) DigestSince(ctx context.Context, holder string, since time.Time, p DigestPolicy, progress func(DigestProgress)) (DigestProgress, error) {
	return s.digestWalk(ctx, holder, p, &since, func(st annals.DigestState) bool {
		return st.LeaseHolder == "" || st.LeaseUntil == nil || !s.now().Before(*st.LeaseUntil)
	}, progress)
}

// digestWalk pages through the chats changed since their digest (active since since, when
// set), oldest activity first, and digests those pick keeps.
func (s *Service) digestWalk(ctx context.Context, holder string, p DigestPolicy, since *time.Time, pick func(annals.DigestState) bool, progress func(DigestProgress)) (DigestProgress, error) {
	var prog DigestProgress
	ds, err := s.digestStore()
	if err != nil {
		return prog, err
	}
	if holder == "" {
		return prog, annals.Errorf(annals.EINVALID, "a digest worker needs a name for its leases")
	}
	p = p.WithDefaults()
	f := annals.DigestStateFilter{ActiveSince: since, Limit: digestPage}
	for {
		page, err := ds.FindDigestStates(ctx, f)
		if err != nil {
			return prog, err
		}
		for _, st := range page {
			if err := ctx.Err(); err != nil {
				return prog, err
			}
			prog.Checked++
			if pick(st) {
				if err := s.digestOne(ctx, ds, st, holder, p, pick, &prog); err != nil {
					return prog, err
				}
			}
			if progress != nil {
				progress(prog)
			}
		}
		if len(page) < digestPage {
			return prog, nil
		}
		last := page[len(page)-1].Chat
		f.AfterActivity, f.AfterID = last.LastActivity, last.ID
	}
}

// Summarizes says whether the service has a summarizer (recaps and digests can run).
func (s *Service) Summarizes() bool { return s.summarizer != nil }

// digestStore is the store's digest state, or why there is none.
func (s *Service) digestStore() (annals.DigestStore, error) {
	if s.summarizer == nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "digests need a summarizer; configure one under summarizer: in the annals config (provider: extractive works offline)")
	}
	ds, ok := s.store.(annals.DigestStore)
	if !ok {
		return nil, annals.Errorf(annals.ENOTIMPLEMENTED, "this store keeps no digest state")
	}
	return ds, nil
}
