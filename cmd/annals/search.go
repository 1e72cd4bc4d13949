package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/annals-dev/annals/internal/human"
	"io"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/envelope"
	"github.com/annals-dev/annals/internal/termsafe"
)

// Terminal highlighting: bold yellow on, reset off.
const (
	ansiMarkOpen  = "\x1b[1;33m"
	ansiMarkClose = "\x1b[0m"
)

// The search asks for these two private-use characters as its marks; the CLI escapes the
// transcript text between them for the terminal and only then puts its own colour codes (or
// brackets) in their place, so no escape sequence from a transcript ever reaches the terminal.
const (
	cliMarkOpen  = annals.SnippetMarkOpen
	cliMarkClose = annals.SnippetMarkClose
)

// snippetHighlighter renders a snippet marked with cliMarkOpen/cliMarkClose.
type snippetHighlighter struct{ open, shut string }

func (h snippetHighlighter) render(s string) string {
	s = termsafe.String(oneLine(s))
	return strings.NewReplacer(cliMarkOpen, h.open, cliMarkClose, h.shut).Replace(s)
}

func runSearch(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("search", "[flags] QUERY...", `Find chats by what was said in them: titles, descriptions, summaries, tags and
transcript bodies (messages, reasoning, tool names, arguments and results). QUERY is
in the search language (docs/QUERY.md): words (all must match), "phrases", prefix*,
-exclusions, OR, parentheses, and filters such as role:user tool:Bash tag:x
attr.repository:github.com/o/r after:2026-01-01 before:2026-02-01 in:title.
Results are ranked by relevance blended with recency, with highlighted snippets;
--rank hybrid fuses that with a ranking by meaning, --rank semantic ranks by meaning alone.
Without --rank, plain words rank hybrid once the embedder has learned meaning, else lexical
(--explain says which and why).
--entries lists matching messages instead, to jump to one with 'annals show ID --around SEQ'.`)
	c := readFlags(fs)
	c.queryEmbed = queryEmbedFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	in := fs.String("in", "", "comma-separated fields to search: title, description, summary, tags, body, tools (default all)")
	sort := fs.String("sort", "relevance", "relevance or recent")
	rank := fs.String("rank", "", "lexical (by the words), hybrid (words and meaning fused) or semantic (by meaning alone); default: hybrid for plain words once the embedder ranks by meaning, else lexical")
	entries := fs.Bool("entries", false, "list matching entries instead of chats")
	explain := fs.Bool("explain", false, "also say how the search ran: the words each prefix* stood for, their document counts, whether they were capped, and the index used")
	ff := addFilterFlags(fs)
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("search needs a query")
	}
	params := annals.SearchParams{Scope: annals.Scope(*ff.scope), Query: strings.Join(fs.Args(), " "), Sort: *sort, Rank: *rank, Explain: *explain}
	if *entries {
		params.Mode = annals.SearchEntriesMode
	}
	if *in != "" {
		params.In = strings.Split(*in, ",")
	}
	var err error
	if params.Filter, params.Page, err = ff.query(); err != nil {
		return invalidIsUsage(err)
	}
	a, err := m.openQuery(ctx, c)
	if err != nil {
		return err
	}
	res, err := a.svc.SearchChats(a.ctx, params)
	if err != nil {
		return invalidIsUsage(err)
	}
	if *asJSON {
		envelope.RenderSnippets(res, "", "") // as the envelope answers a search without marks
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	// Not brackets: they would read a redaction placeholder ([redacted:aws_access_key]) as a match.
	hl := snippetHighlighter{open: envelope.DefaultMarkOpen, shut: envelope.DefaultMarkClose}
	if m.colour() {
		hl = snippetHighlighter{open: ansiMarkOpen, shut: ansiMarkClose}
	}
	if res.Explain != nil {
		writeExplain(m.human(), res.Explain)
	}
	if res.Partial {
		fmt.Fprintf(m.human(), "Partial: %s.\n", termsafe.String(res.PartialReason))
	}
	if res.Total == 0 {
		_, err := fmt.Fprintf(m.human(), "No matches for %s.\n", params.Query) // as typed
		return err
	}
	if *entries {
		writeEntryHits(m.Stdout, hl, res.Entries)
	} else {
		writeChatHits(m.Stdout, hl, res.Chats)
	}
	shown := res.Offset + max(len(res.Chats), len(res.Entries))
	switch {
	case res.TotalIsLowerBound && res.NextCursor != "":
		// The search stopped after its page: how many match is known to be at least Total.
		fmt.Fprintf(m.Stdout, "%d of at least %d shown (--offset %d or --cursor %s for more)\n", shown-res.Offset, max(res.Total, shown), shown, res.NextCursor)
	case shown < res.Total:
		fmt.Fprintf(m.Stdout, "%d of %d shown (--offset %d or --cursor %s for more)\n", shown-res.Offset, res.Total, shown, res.NextCursor)
	}
	return nil
}

// writeChatHits writes chat hits; every string from the store goes through termsafe first.
func writeChatHits(w io.Writer, hl snippetHighlighter, hits []annals.ChatHit) {
	for _, h := range hits {
		c := h.Chat
		title := c.Title
		if title == "" {
			title = "(untitled)"
		}
		// A chat found by its title or description, or by a filter alone (tool:, role:), has no
		// entry the words matched: it says nothing about entries rather than "0".
		matches := ""
		if h.Matches > 0 {
			matches = " · " + plural(h.Matches, "matching entry", "matching entries")
		}
		fmt.Fprintf(w, "%s  %s  · %s%s\n", termsafe.String(c.ID), termsafe.String(oneLine(title)), humanTime(c.LastActivity), matches)
		for _, s := range h.Snippets {
			who := string(s.Kind)
			if s.Tool != "" {
				who += " " + s.Tool
			}
			fmt.Fprintf(w, "    #%d %s: %s\n", s.Seq, termsafe.String(who), hl.render(s.Text))
		}
	}
}

func writeEntryHits(w io.Writer, hl snippetHighlighter, hits []annals.EntryHit) {
	for _, h := range hits {
		e := h.Entry
		who := string(e.Kind)
		if e.Tool != nil {
			who += " " + e.Tool.Name
		}
		fmt.Fprintf(w, "%s #%d %s · %s\n    %s\n", termsafe.String(e.ChatID), e.Seq, termsafe.String(who), e.Time.Local().Format("2006-01-02 15:04"), hl.render(h.Snippet))
	}
}

// writeExplain says how a search ran: its ranking and why, its path and each prefix's expansion.
func writeExplain(w io.Writer, x *annals.SearchExplain) {
	if x.Rank != "" {
		fmt.Fprintf(w, "Rank: %s (%s).\n", x.Rank, termsafe.String(x.RankReason))
	}
	if x.Path != "" {
		fmt.Fprintf(w, "Search path: %s.\n", x.Path)
	}
	for _, e := range x.Expansions {
		if e.AllTenants && e.Scanned == 0 {
			// Withheld by the history (annals.PrefixExpansion.Withheld): the words are every tenant's.
			fmt.Fprintf(w, "Prefix %s: its words are not shown (the index's vocabulary holds every tenant's words)%s\n",
				termsafe.String(e.Prefix), map[bool]string{true: "; capped to the most frequent", false: ""}[e.Capped])
			continue
		}
		of := fmt.Sprintf("more than %d", e.Scanned)
		if e.Vocabulary > 0 {
			of = fmt.Sprint(e.Vocabulary)
		}
		capped := ""
		if e.Capped {
			capped = ", capped to the most frequent"
		}
		fmt.Fprintf(w, "Prefix %s: %s words in the index, searched %d (%d documents%s): %s\n",
			termsafe.String(e.Prefix), of, len(e.Words), e.Docs, capped, termsafe.String(strings.Join(e.Words, " ")))
	}
}

// plural is n with the singular or the plural noun (one place: internal/human).
func plural[N ~int | ~int64](n N, one, many string) string { return human.Count(n, one, many) }
