package history

import (
	"context"
	"strconv"
	"time"

	"github.com/annals-dev/annals"
)

// RecapChat summarises the transcript so far and stores the summary on the chat, replacing any
// earlier one. The scope fold runs first, so no summarizer is ever called for a chat outside
// scope. It only reads the transcript, so it is safe on a chat that is still being written.
func (s *Service) RecapChat(ctx context.Context, c annals.ChatSelector) (*annals.Recap, error) {
	chat, _, err := s.fetch(ctx, OpRecap, c)
	if err != nil {
		return nil, err
	}
	if s.summarizer == nil {
		return nil, annals.Errorf(annals.EUNAVAILABLE, "recap needs a summarizer; configure one under summarizer: in the annals config (provider: extractive works offline)")
	}
	entries, err := s.store.FindEntries(ctx, annals.EntryFilter{ChatID: chat.ID, Ref: ptrRef(chat), Limit: maxExportEntries})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 && chat.Totals.Entries > 0 {
		// The read was bound to the chat as fetched and found nothing: the chat was deleted (and
		// perhaps created again by someone else) since. Nothing of it is summarised.
		return nil, annals.NotFound(chat.ID)
	}
	summary, err := s.summarize(ctx, chat, entries)
	if err != nil {
		return nil, err
	}
	summary = s.redactText(summary)
	if len(summary) > annals.MaxSummaryBytes {
		summary = summary[:annals.MaxSummaryBytes]
		summary = validUTF8Prefix(summary)
	}
	updated, err := s.store.UpdateChat(ctx, chat.Ref(), annals.ChatUpdate{Summary: &summary})
	if err != nil {
		return nil, err
	}
	s.changes.publish(updated.ID, updated.OwnedBy())
	s.markRecapped(ctx, chat)
	s.embedChat(ctx, updated)
	return &annals.Recap{Chat: updated, Summary: summary}, nil
}

// markRecapped records the recap as the chat's digest, at the revision read before its
// transcript, so the background worker does not digest it again until it changes. Best effort:
// the summary is stored; a chat the worker then digests once more is only redundant work.
func (s *Service) markRecapped(ctx context.Context, read *annals.Chat) {
	ds, ok := s.store.(annals.DigestStore)
	if !ok {
		return
	}
	if err := ds.MarkDigested(context.WithoutCancel(ctx), read.Ref(), read.Revision, s.now()); err != nil {
		s.log.Warn("record recap as digest", "chat", read.ID, "err", annals.ErrorDetail(err))
	}
}

// summarize calls the summarizer and, when it reports what it spent (annals.MeteredSummarizer),
// records that as a run of the chat it served, completed or failed, so the usage report counts
// and prices recaps with the chat's own runs. The run id names the recap and its start; the
// model is the provider's model, priced by the usage report's table. A failed recap stores no
// summary: only its run is recorded. Recording is best effort: a recap is not failed because
// its accounting could not be written.
func (s *Service) summarize(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (string, error) {
	m, ok := s.summarizer.(annals.MeteredSummarizer)
	if !ok {
		return s.summarizer.Summarize(ctx, chat, entries)
	}
	start := time.Now().UTC()
	summary, usage, err := m.SummarizeMetered(ctx, chat, entries)
	s.recordSummaryRun(ctx, chat, start, usage, err)
	return summary, err
}

// summarizeTitled is summarize with a title written by the model in the same call, where the
// summarizer can (annals.TitledSummarizer: the model clients ask for strict JSON {title,
// summary}, and a malformed answer fails it like a failed call); Title is "" otherwise, and the
// caller titles the chat itself. Its run is recorded as summarize's is.
func (s *Service) summarizeTitled(ctx context.Context, chat *annals.Chat, entries []*annals.Entry) (annals.TitledSummary, error) {
	t, ok := s.summarizer.(annals.TitledSummarizer)
	if !ok {
		summary, err := s.summarize(ctx, chat, entries)
		return annals.TitledSummary{Summary: summary}, err
	}
	start := time.Now().UTC()
	out, usage, err := t.SummarizeTitled(ctx, chat, entries)
	s.recordSummaryRun(ctx, chat, start, usage, err)
	return out, err
}

// recordSummaryRun records what a summary spent as a run of the chat (nothing when it made no
// call, as the offline summarizer never does), of kind recap: counted in the chat's totals and
// the usage report, but not the chat's activity (its status, last activity and place in the
// list stay as its own runs and entries left them).
func (s *Service) recordSummaryRun(ctx context.Context, chat *annals.Chat, start time.Time, usage annals.SummaryUsage, err error) {
	if usage.Calls == 0 {
		return
	}
	end := time.Now().UTC()
	run := &annals.Run{
		ID: "recap-" + chat.ID + "-" + strconv.FormatInt(start.UnixNano(), 36), ChatID: chat.ID,
		Status: annals.StatusCompleted, Model: usage.Model, StartedAt: start, EndedAt: &end,
		InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens, Kind: annals.RunKindRecap,
	}
	if err != nil {
		run.Status = annals.StatusFailed
	}
	owner := chat.OwnedBy()
	_, _ = s.capture.Capture(context.WithoutCancel(ctx), []annals.CaptureOp{{Run: run, Expect: &owner}})
}

// validUTF8Prefix drops a partial rune left at the end by a byte cut.
func validUTF8Prefix(s string) string {
	for len(s) > 0 {
		r := s[len(s)-1]
		if r < 0x80 {
			return s
		}
		// Walk back to the start byte of the last rune and keep it only if complete.
		i := len(s) - 1
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if isComplete(s[i:]) {
			return s
		}
		s = s[:i]
	}
	return s
}

func isComplete(tail string) bool {
	b := tail[0]
	need := 1
	switch {
	case b&0xE0 == 0xC0:
		need = 2
	case b&0xF0 == 0xE0:
		need = 3
	case b&0xF8 == 0xF0:
		need = 4
	}
	return len(tail) >= need
}
