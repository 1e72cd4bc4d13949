package history

import (
	"context"
	"strings"
	"unicode"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/textcut"
)

// digestOne digests one chat as holder: it takes the chat's lease (and renews it while the
// digest is computed: holdLease), reads the revision (entry count) and then the transcript, summarises it and stores the summary (and a generated title
// where the chat has none of a person's) only if the chat still holds that revision: the store
// checks it in the write's transaction. A failure is recorded with its backoff and leaves the
// stored summary as it was. It returns an error only when the pass cannot go on (the store
// failing, the context ending); a chat's own failure is counted in prog.
func (s *Service) digestOne(ctx context.Context, ds annals.DigestStore, st annals.DigestState, holder string, p DigestPolicy, pick func(annals.DigestState) bool, prog *DigestProgress) error {
	now := s.now()
	taken, err := ds.LeaseDigest(ctx, st.Chat.Ref(), holder, now, now.Add(p.Lease))
	switch {
	case annals.ErrorCode(err) == annals.ENOTFOUND:
		return nil // deleted (or replaced) since it was listed
	case err != nil:
		return err
	case !taken:
		prog.Busy++
		return nil
	}
	// Read again under the lease: another worker may have digested it since it was listed.
	fresh, err := ds.FindDigestStates(ctx, annals.DigestStateFilter{ChatID: st.Chat.ID, Limit: 1})
	if err != nil {
		return err
	}
	if len(fresh) == 0 || fresh[0].Chat.Incarnation != st.Chat.Incarnation || !pick(unleased(fresh[0])) {
		err := ds.ReleaseDigest(ctx, st.Chat.Ref(), holder)
		if annals.ErrorCode(err) == annals.ENOTFOUND {
			return nil
		}
		return err
	}
	st = fresh[0]
	chat := st.Chat
	held, stop := s.holdLease(ctx, ds, chat.Ref(), holder, p.Lease)
	summary, title, err := s.computeDigest(held, chat)
	switch stop() {
	case leaseTaken:
		prog.Busy++ // another worker took the chat after the lease expired: it is that one's now
		return nil
	case chatGone:
		return nil // deleted (or replaced) while it was digested: skipped, as when it goes before
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.failDigest(ctx, ds, chat, st.Failures+1, holder, p, prog, err)
	}
	updated, err := ds.StoreDigest(ctx, chat.Ref(), annals.DigestWrite{Holder: holder, Revision: chat.Revision, Summary: summary, Title: title, At: s.now()})
	switch annals.ErrorCode(err) {
	case "":
	case annals.ECONFLICT:
		prog.Changed++ // new entries arrived (or the lease was lost): it stays due
		return nil
	case annals.ENOTFOUND:
		return nil
	case annals.EINVALID:
		return s.failDigest(ctx, ds, chat, st.Failures+1, holder, p, prog, err)
	default:
		return err
	}
	prog.Digested++
	if title != "" && updated.Title == title && updated.TitleGenerated {
		prog.Titled++
	}
	s.embedChat(ctx, updated)
	return nil
}

// unleased is st without its lease: the state as seen by the lease's holder.
func unleased(st annals.DigestState) annals.DigestState {
	st.LeaseHolder, st.LeaseUntil = "", nil
	return st
}

// computeDigest reads the transcript of chat (bound to the chat as fetched) and returns its
// summary and, when the chat's title is empty or generated, a generated title, both redacted:
// the model's own title where the summarizer writes one (annals.TitledSummarizer), else one
// made from the summary (digestTitle).
func (s *Service) computeDigest(ctx context.Context, chat *annals.Chat) (summary, title string, err error) {
	entries, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ptrRef(chat), Limit: maxExportEntries})
	if err != nil {
		return "", "", err
	}
	wantTitle := chat.Title == "" || chat.TitleGenerated
	var out annals.TitledSummary
	if wantTitle {
		out, err = s.summarizeTitled(ctx, chat, entries)
	} else {
		out.Summary, err = s.summarize(ctx, chat, entries)
	}
	if err != nil {
		return "", "", err
	}
	summary = s.redactText(out.Summary)
	if len(summary) > annals.MaxSummaryBytes {
		summary = validUTF8Prefix(summary[:annals.MaxSummaryBytes])
	}
	if wantTitle {
		title = titleLine(out.Title)
		if title == "" {
			title = digestTitle(summary, entries)
		}
		title = s.redactText(title)
	}
	return summary, title, nil
}

// failDigest records the n-th failure in a row of chat's digest, with its backoff.
func (s *Service) failDigest(ctx context.Context, ds annals.DigestStore, chat *annals.Chat, n int, holder string, p DigestPolicy, prog *DigestProgress, cause error) error {
	prog.Failed++
	wait := p.BackoffAfter(n)
	s.log.Warn("digest chat", "chat", chat.ID, "failures", n, "retry_in", wait.String(), "err", annals.ErrorDetail(cause))
	err := ds.FailDigest(context.WithoutCancel(ctx), chat.Ref(), annals.DigestFailure{Holder: holder, Failures: n, RetryAt: s.now().Add(wait)})
	if annals.ErrorCode(err) == annals.ENOTFOUND {
		return nil
	}
	return err
}

// maxGeneratedTitle bounds a generated title, in characters.
const maxGeneratedTitle = 80

// digestTitle makes a title from a digest: the first sentence of its goal (the summarizers
// write a "Goal:" line), else of the chat's first user message; single-line, without
// Markdown emphasis or control characters, at most maxGeneratedTitle characters, cut at a word.
func digestTitle(summary string, entries []*annals.Entry) string {
	src := ""
	for line := range strings.SplitSeq(summary, "\n") {
		l := strings.TrimLeft(strings.TrimSpace(line), "-*# ")
		if rest, ok := strings.CutPrefix(l, "Goal"); ok {
			src = strings.TrimLeft(rest, ":*— -")
			break
		}
	}
	if strings.TrimSpace(src) == "" {
		for _, e := range entries {
			if e.Kind == annals.KindUser && strings.TrimSpace(e.Text) != "" {
				src = e.Text
				break
			}
		}
	}
	return titleLine(src)
}

// titleLine condenses text into a title line: its first sentence, one line, no emphasis marks
// or control characters, cut at a word to maxGeneratedTitle characters.
func titleLine(text string) string {
	text = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case unicode.IsControl(r), r == '*', r == '`':
			return -1
		}
		return r
	}, text)
	text = strings.Join(strings.Fields(text), " ")
	for _, end := range []string{". ", "? ", "! "} {
		if i := strings.Index(text, end); i > 0 {
			text = text[:i+1]
		}
	}
	if cut := textcut.First(text, maxGeneratedTitle); cut != text {
		if i := strings.LastIndexByte(cut, ' '); i > maxGeneratedTitle/2 {
			cut = cut[:i]
		}
		text = strings.TrimRight(cut, " ,;:") + "…"
	}
	return strings.TrimSpace(text)
}
