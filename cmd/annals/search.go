package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/annals-dev/annals/history"
)

func runSearch(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("search", "[flags] QUERY...", "Find chats whose title, description, summary or tags contain every word of QUERY\n(case- and accent-insensitive), with every list filter available.")
	c := commonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON: {chats, total, limit, offset, next_cursor, scope}")
	in := fs.String("in", "", "comma-separated fields to search: title, description, summary, tags (default all)")
	ff := addFilterFlags(fs)
	if err := m.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("search needs a query")
	}
	req := &history.Request{Op: history.OpSearch, Query: strings.Join(fs.Args(), " ")}
	if *in != "" {
		req.In = strings.Split(*in, ",")
	}
	if err := ff.apply(req); err != nil {
		return err
	}
	a, err := m.open(ctx, c, false)
	if err != nil {
		return err
	}
	res, err := a.svc.Search(a.ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(res)
	}
	return writeChatPage(m.Stdout, res, "No chats match.")
}
