package annals

import (
	"context"
	"time"
)

// Background digests (docs/PROVIDERS.md, "Digests in the background"): a worker summarises the
// chats that are due and, where a chat has no human title, gives it a generated one. The policy
// (which chat is due, how long a failing chat waits) is the history service's
// (history/digest.go); a DigestStore only keeps each chat's digest state, the lease that keeps
// two servers from digesting one chat at once, and writes a digest only if the transcript is
// still the one it was computed from.

// DigestState is one chat's digest bookkeeping, read together with the chat.
type DigestState struct {
	// Chat is the chat as read (its Revision is the transcript's revision now).
	Chat *Chat
	// DigestedRevision is the transcript revision (Chat.Revision) the stored digest was
	// computed from; -1 when the chat was never digested.
	DigestedRevision int64
	// DigestedAt is when the last digest was stored; nil when never.
	DigestedAt *time.Time
	// Failures counts the digests that failed in a row since the last one stored.
	Failures int
	// RetryAt, when set, is the earliest time the chat may be tried again after a failure.
	RetryAt *time.Time
	// LeaseHolder and LeaseUntil name who is digesting the chat now, until when; an expired
	// lease is free.
	LeaseHolder string
	LeaseUntil  *time.Time
}

// DigestStateFilter selects digest states.
type DigestStateFilter struct {
	// ActiveSince, when set, keeps chats whose last activity is at or after it.
	ActiveSince *time.Time
	// After pages: only chats after this (last activity, id) position, oldest activity first.
	AfterActivity time.Time
	AfterID       string
	// ChatID, when set, reads that chat's state alone (if it is listed at all).
	ChatID string
	// Limit bounds the page (at most MaxListLimit).
	Limit int
}

// DigestWrite is a computed digest to store.
type DigestWrite struct {
	// Holder is the lease holder that computed it: the write lands only while it holds the lease.
	Holder string
	// Revision is the transcript revision the digest was computed from (Chat.Revision as read
	// before the transcript was read).
	Revision int64
	Summary  string
	// Title is a generated title; it is stored (marked generated) only when the chat has no
	// title or a generated one. "" leaves the title alone.
	Title string
	At    time.Time
}

// DigestFailure records a failed digest.
type DigestFailure struct {
	Holder   string
	Failures int
	RetryAt  time.Time
}

// DigestStore keeps the digest state of chats.
type DigestStore interface {
	// FindDigestStates returns, oldest activity first (then id), up to Limit chats of any owner
	// that hold entries and whose transcript differs from the one last digested (never
	// digested, or another revision), with their state. It decides nothing: the history
	// service picks the due ones. Errors: invalid, unavailable, internal.
	FindDigestStates(ctx context.Context, f DigestStateFilter) ([]DigestState, error)

	// LeaseDigest takes the chat's digest lease for holder until until, atomically: it succeeds
	// when the lease is free, expired at now, or already holder's, and answers false when
	// another holder has it. Errors: not_found (the chat ref named is gone), forbidden,
	// unavailable, internal.
	LeaseDigest(ctx context.Context, ref ChatRef, holder string, now, until time.Time) (bool, error)

	// RenewDigest moves the end of holder's lease of the chat to until, only while holder
	// still has it (expired or not: a lease no one else took is still holder's), and answers
	// false when the lease is another's or free — taken by another worker after it expired,
	// whatever that worker did with it since. A worker whose digest outlives a part of its
	// lease renews it, so no second worker takes the chat while the first is still at work;
	// a worker that stops renewing (crashed) loses the chat when the lease expires. Errors:
	// not_found, forbidden, unavailable, internal.
	RenewDigest(ctx context.Context, ref ChatRef, holder string, until time.Time) (bool, error)

	// ReleaseDigest releases the chat's lease if holder has it. Errors: not_found, forbidden,
	// unavailable, internal.
	ReleaseDigest(ctx context.Context, ref ChatRef, holder string) error

	// StoreDigest stores a digest in one transaction, only if holder still holds the chat's
	// lease and the chat's transcript is still at w.Revision: the summary, the title when the chat's
	// title is empty or generated (marking it generated; a human title is never replaced), the
	// digested revision and time; failures are reset and the lease released. Otherwise nothing
	// is stored, the lease is released and the answer is a conflict.
	// Errors: conflict, not_found, invalid, forbidden, unavailable, internal.
	StoreDigest(ctx context.Context, ref ChatRef, w DigestWrite) (*Chat, error)

	// FailDigest records a failed digest by holder (its count and when to retry) and releases
	// the lease; the chat's summary and title are untouched. Errors: not_found, forbidden,
	// unavailable, internal.
	FailDigest(ctx context.Context, ref ChatRef, f DigestFailure) error

	// MarkDigested records that the chat's summary was written by a recap made outside the
	// worker (annals recap, the recap op) from the transcript at revision (as read before the
	// transcript was), at at: the digested revision and time, failures reset; the lease is
	// left alone. The worker then treats the chat as digested at that revision. Errors:
	// not_found, forbidden, unavailable, internal.
	MarkDigested(ctx context.Context, ref ChatRef, revision int64, at time.Time) error

	// DigestScheduleRun reads when the scheduled recap last ran (zero when never);
	// RecordDigestScheduleRun stores it. Errors: forbidden, unavailable, internal.
	DigestScheduleRun(ctx context.Context) (time.Time, error)
	RecordDigestScheduleRun(ctx context.Context, at time.Time) error
}
