// Package storecopy copies a whole history from one store to another (SQLite to PostgreSQL and
// back) and verifies the copy, through the stores' exported contracts only (annals.Store and
// annals.ChatCopier). `annals copy` runs it.
package storecopy

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/annals-dev/annals"
)

// copyPage is how many chat ids one walk step reads, and copyEntries how many entries one
// append carries.
const (
	copyPage    = 200
	copyEntries = 1000
)

// Report is what a copy did. A second copy of the same source reports everything as present
// and nothing copied.
type Report struct {
	From string `json:"from"`
	To   string `json:"to"`

	Chats          int `json:"chats"`
	ChatsCreated   int `json:"chats_created"`
	ChatsRestored  int `json:"chats_metadata_updated"`
	EntriesCopied  int `json:"entries_copied"`
	EntriesPresent int `json:"entries_present"`
	RunsCopied     int `json:"runs_copied"`
	RunsPresent    int `json:"runs_present"`
	// SourceChats and DestinationChats are the chat counts of both stores at the end; the
	// destination may hold more (chats it had before).
	SourceChats      int           `json:"source_chats"`
	DestinationChats int           `json:"destination_chats"`
	Verified         bool          `json:"verified"`
	Duration         time.Duration `json:"duration_ns"`
}

// Copy copies every chat of src into dst (both need annals.ChatCopier): every chat of every
// tenant with its metadata, its entries (every field, same seq) and its runs, then verifies the
// destination chat by chat. It is idempotent: a second copy copies only what is new. progress,
// when set, is called after each chat.
func Copy(ctx context.Context, src, dst annals.Store, progress func(*Report)) (*Report, error) {
	start := time.Now()
	rep := &Report{}
	walker, ok := src.(annals.ChatCopier)
	if !ok {
		return rep, annals.Errorf(annals.EINVALID, "the source store cannot be walked for a copy")
	}
	restorer, ok := dst.(annals.ChatCopier)
	if !ok {
		return rep, annals.Errorf(annals.EINVALID, "the destination store cannot restore chat metadata for a copy")
	}
	after := ""
	for {
		ids, err := walker.ChatIDsAfter(ctx, after, copyPage)
		if err != nil {
			return rep, fmt.Errorf("read the source's chats: %w", err)
		}
		for _, id := range ids {
			if err := copyChat(ctx, src, dst, restorer, id, rep); err != nil {
				return rep, fmt.Errorf("chat %q: %w", id, err)
			}
			rep.Chats++
			if progress != nil {
				progress(rep)
			}
		}
		if len(ids) < copyPage {
			break
		}
		after = ids[len(ids)-1]
	}
	all := annals.ChatFilter{Owner: annals.Owner{AllTenants: true}, IncludeArchived: true, Limit: 1}
	var err error
	if _, rep.SourceChats, err = src.FindChats(ctx, all); err != nil {
		return rep, err
	}
	if _, rep.DestinationChats, err = dst.FindChats(ctx, all); err != nil {
		return rep, err
	}
	if rep.DestinationChats < rep.SourceChats {
		return rep, annals.Errorf(annals.EINTERNAL, "verification failed: the destination holds %d chats, fewer than the source's %d", rep.DestinationChats, rep.SourceChats)
	}
	rep.Verified = true
	// A bulk load leaves PostgreSQL without statistics until autovacuum runs; refresh them.
	if a, ok := dst.(interface{ Analyze(context.Context) error }); ok {
		if err := a.Analyze(ctx); err != nil {
			return rep, err
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// copyChat copies one chat: creates it (idempotently: the same immutable data is a no-op,
// different data a conflict), appends the entries the destination lacks, records the runs that
// differ, sets the metadata and activity time exactly, then verifies the counts.
func copyChat(ctx context.Context, src, dst annals.Store, restorer annals.ChatCopier, id string, rep *Report) error {
	c, err := src.FindChatByID(ctx, id)
	if err != nil {
		return err
	}
	res, err := dst.Capture(ctx, []annals.CaptureOp{{Chat: c}})
	if err != nil {
		return annals.Unbatch(err)
	}
	rep.ChatsCreated += res.ChatsCreated

	if err := copyTranscript(ctx, src, dst, c, rep); err != nil {
		return err
	}
	if err := copyRuns(ctx, src, dst, id, rep); err != nil {
		return err
	}

	// Metadata and times last: appends and runs move the destination's last activity.
	got, err := dst.FindChatByID(ctx, id)
	if err != nil {
		return err
	}
	if !sameCurated(got, c) {
		if got, err = restorer.RestoreChat(ctx, c); err != nil {
			return err
		}
		rep.ChatsRestored++
	}
	return verifyChat(ctx, src, dst, c, got)
}

// copyTranscript appends the entries the destination lacks. It continues after what the
// destination already holds when its last entry is the source's entry at the same seq (a
// previous copy); otherwise it offers everything and lets the append skip the ids it has.
func copyTranscript(ctx context.Context, src, dst annals.Store, c *annals.Chat, rep *Report) error {
	id := c.ID
	have, err := dst.FindChatByID(ctx, id)
	if err != nil {
		return err
	}
	var from int64
	if n := have.Totals.Entries; n > 0 && n <= c.Totals.Entries {
		a, err := src.FindEntries(ctx, annals.EntryFilter{ChatID: id, FromSeq: n, ToSeq: n})
		if err != nil {
			return err
		}
		b, err := dst.FindEntries(ctx, annals.EntryFilter{ChatID: id, FromSeq: n, ToSeq: n})
		if err != nil {
			return err
		}
		if len(a) == 1 && len(b) == 1 && a[0].ID == b[0].ID {
			from = n
			rep.EntriesPresent += int(n)
		}
	}
	for {
		page, err := src.FindEntries(ctx, annals.EntryFilter{ChatID: id, AfterSeq: from, Limit: copyEntries})
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		got, err := annals.AppendEntries(ctx, dst, id, page)
		if err != nil {
			return err
		}
		rep.EntriesCopied += got.Appended
		rep.EntriesPresent += got.Skipped
		from = page[len(page)-1].Seq
		if len(page) < copyEntries {
			break
		}
	}
	return nil
}

// copyRuns records the runs, oldest first as the source recorded them, so the destination
// derives the same status. Runs already there with the same values are left alone.
func copyRuns(ctx context.Context, src, dst annals.Store, id string, rep *Report) error {
	srcRuns, err := src.FindRuns(ctx, id)
	if err != nil {
		return err
	}
	dstRuns, err := dst.FindRuns(ctx, id)
	if err != nil {
		return err
	}
	present := map[string]*annals.Run{}
	for _, r := range dstRuns {
		present[r.ID] = r
	}
	for _, r := range srcRuns {
		if d, ok := present[r.ID]; ok && sameRun(d, r) {
			rep.RunsPresent++
			continue
		}
		if _, err := annals.RecordRun(ctx, dst, r); err != nil {
			return err
		}
		rep.RunsCopied++
	}
	return nil
}

// verifyChat checks that the destination's copy holds what the source's does: the same counts,
// status and totals, and the same entry ids at the same seqs.
func verifyChat(ctx context.Context, src, dst annals.Store, want, got *annals.Chat) error {
	fail := func(format string, args ...any) error {
		return annals.Errorf(annals.EINTERNAL, "verification failed: "+format+" (the destination may have held a different chat of the same id; inspect it, or copy into an empty database)", args...)
	}
	if got.Totals.Entries != want.Totals.Entries || got.Totals.Runs != want.Totals.Runs {
		return fail("the destination holds %d entries and %d runs, the source %d and %d", got.Totals.Entries, got.Totals.Runs, want.Totals.Entries, want.Totals.Runs)
	}
	if got.Status != want.Status || got.Totals.InputTokens != want.Totals.InputTokens || got.Totals.OutputTokens != want.Totals.OutputTokens {
		return fail("status or token totals differ (%s %d/%d against %s %d/%d)", got.Status, got.Totals.InputTokens, got.Totals.OutputTokens, want.Status, want.Totals.InputTokens, want.Totals.OutputTokens)
	}
	if !sameCurated(got, want) {
		return fail("the metadata differs after the copy")
	}
	var after int64
	for {
		a, err := src.FindEntries(ctx, annals.EntryFilter{ChatID: want.ID, AfterSeq: after, Limit: copyEntries})
		if err != nil {
			return err
		}
		b, err := dst.FindEntries(ctx, annals.EntryFilter{ChatID: want.ID, AfterSeq: after, Limit: copyEntries})
		if err != nil {
			return err
		}
		if len(a) != len(b) {
			return fail("%d entries after seq %d in the destination, %d in the source", len(b), after, len(a))
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Seq != b[i].Seq {
				return fail("seq %d is entry %q in the destination, %q in the source", a[i].Seq, b[i].ID, a[i].ID)
			}
		}
		if len(a) < copyEntries {
			return nil
		}
		after = a[len(a)-1].Seq
	}
}

func sameRun(a, b *annals.Run) bool {
	return a.Status == b.Status && a.Model == b.Model && a.StartedAt.Equal(b.StartedAt) && sameTime(a.EndedAt, b.EndedAt) &&
		a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens && a.CostUSD == b.CostUSD &&
		a.CacheReadTokens == b.CacheReadTokens && a.CacheCreationTokens == b.CacheCreationTokens && a.ContextTokens == b.ContextTokens &&
		a.Kind == b.Kind
}

// sameCurated compares what RestoreChat sets.
func sameCurated(a, b *annals.Chat) bool {
	return a.Title == b.Title && a.TitleGenerated == b.TitleGenerated && a.Description == b.Description && slices.Equal(a.Tags, b.Tags) && a.Pinned == b.Pinned &&
		sameTime(a.ArchivedAt, b.ArchivedAt) && a.Summary == b.Summary && sameTime(a.SummaryUpdatedAt, b.SummaryUpdatedAt) &&
		a.LastActivity.Equal(b.LastActivity)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
