package summarize

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/annals-dev/annals"
)

// Titles a model writes are asked for at 80 characters and accepted up to maxTitleRunes.
const maxTitleRunes = 120

// parseTitled checks a titled answer: one JSON object with exactly the string fields "title"
// and "summary" (no others, no other case), both non-empty after trimming; a one-line title of
// at most maxTitleRunes characters without control characters; a summary of at most
// maxSummaryChars bytes. Surrounding whitespace and one Markdown code fence around the object
// are forgiven (models add them despite the prompt); anything else is malformed, asked once
// more by ask, then the recap's failure.
func parseTitled(answer string) (annals.TitledSummary, error) {
	s := unfence(strings.TrimSpace(answer))
	dec := json.NewDecoder(strings.NewReader(s))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return annals.TitledSummary{}, malformed("the summarization model's answer is not the JSON object {title, summary} asked for")
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		return annals.TitledSummary{}, malformed("the summarization model's answer has text after its JSON object")
	}
	if len(fields) != 2 || fields["title"] == nil || fields["summary"] == nil {
		return annals.TitledSummary{}, malformed(fmt.Sprintf("the summarization model's JSON has the fields %s, want exactly title and summary", fieldNames(fields)))
	}
	var out annals.TitledSummary
	if json.Unmarshal(fields["title"], &out.Title) != nil || json.Unmarshal(fields["summary"], &out.Summary) != nil {
		return annals.TitledSummary{}, malformed("the summarization model's title and summary must be JSON strings")
	}
	out.Title = strings.Join(strings.Fields(out.Title), " ")
	out.Summary = strings.TrimSpace(out.Summary)
	switch {
	case out.Title == "" || out.Summary == "":
		return annals.TitledSummary{}, malformed("the summarization model's title or summary is empty")
	case utf8.RuneCountInString(out.Title) > maxTitleRunes:
		return annals.TitledSummary{}, malformed(fmt.Sprintf("the summarization model's title is longer than %d characters", maxTitleRunes))
	case strings.IndexFunc(out.Title, unicode.IsControl) >= 0:
		return annals.TitledSummary{}, malformed("the summarization model's title holds control characters")
	case len(out.Summary) > maxSummaryChars:
		return annals.TitledSummary{}, malformed(fmt.Sprintf("the summarization model's summary is longer than %d bytes", maxSummaryChars))
	}
	return out, nil
}

// unfence removes one Markdown code fence around s ("```json\n{...}\n```").
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := s[3 : len(s)-3]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{\"") {
		body = body[nl+1:] // the info string ("json")
	}
	return strings.TrimSpace(body)
}

func fieldNames(fields map[string]json.RawMessage) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, fmt.Sprintf("%q", k))
	}
	if len(names) == 0 {
		return "(none)"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Titled summarises with s and a title: the model clients' own titled call, else (the offline
// summarizer, a test double) the summary with no title, which the caller titles itself.
func Titled(ctx context.Context, s annals.Summarizer, chat *annals.Chat, entries []*annals.Entry) (annals.TitledSummary, annals.SummaryUsage, error) {
	switch t := s.(type) {
	case annals.TitledSummarizer:
		return t.SummarizeTitled(ctx, chat, entries)
	case annals.MeteredSummarizer:
		sum, usage, err := t.SummarizeMetered(ctx, chat, entries)
		return annals.TitledSummary{Summary: sum}, usage, err
	}
	sum, err := s.Summarize(ctx, chat, entries)
	return annals.TitledSummary{Summary: sum}, annals.SummaryUsage{}, err
}
