package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

func runRelated(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("related", "[flags] (CHAT_ID | --query TEXT | --backfill)", "Find chats close in meaning to a chat or to free text, using the configured\nembedder (offline by default: learned from the history). --backfill embeds every chat without a current vector, as 'annals reindex\n--embeddings' does (chats are also embedded as they are captured, imported, renamed,\nannotated and recapped).")
	c := readFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	scope := fs.String("scope", "", "whose chats to search")
	query := fs.String("query", "", "free text to find related chats for")
	limit := fs.Int("limit", history.DefaultRelatedLimit, fmt.Sprintf("results (at most %d)", history.MaxRelatedLimit))
	archived := fs.Bool("archived", false, "include archived chats")
	backfill := fs.Bool("backfill", false, "embed every chat without a current vector, then exit")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	c.queryRemote = !*backfill // embedding is this database's work, not a read of the collection
	a, err := m.openRead(ctx, c)
	if err != nil {
		return err
	}
	if *backfill {
		if fs.NArg() > 0 || *query != "" {
			return usagef("--backfill takes no chat id or query")
		}
		p, err := m.backfill(a.ctx, a.svc, !*asJSON && m.IsTerminal(m.Stderr))
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(m.Stdout).Encode(p)
		}
		_, err = fmt.Fprintf(m.Stdout, "embedded %s (%d failed)\n", plural(p.Embedded, "chat", "chats"), p.Failed)
		return err
	}
	params := annals.RelatedParams{Scope: annals.Scope(*scope), Query: *query, Limit: *limit, IncludeArchived: *archived}
	switch {
	case fs.NArg() == 1 && *query == "":
		params.ChatID = fs.Arg(0)
	case fs.NArg() == 0 && *query != "":
	default:
		return usagef("related needs one chat id or --query TEXT")
	}
	res, err := a.svc.FindRelated(a.ctx, params)
	if err != nil {
		return invalidIsUsage(err)
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	if len(res.Results) == 0 {
		_, err := fmt.Fprintf(m.Stdout, "No related chats among %d embedded candidates (run 'annals related --backfill' to embed older chats).\n", res.Candidates)
		return err
	}
	chats := make([]*annals.Chat, len(res.Results))
	for i, r := range res.Results {
		chats[i] = r.Chat
	}
	if err := writeChatTable(m.human(), chats, func(i int) string { return fmt.Sprintf("%.3f", res.Results[i].Score) }, m.width()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(m.Stdout, "%s ranked (cap %d) with %s\n", plural(res.Candidates, "candidate", "candidates"), res.CandidateCap, strings.TrimSpace(res.Model))
	return err
}
