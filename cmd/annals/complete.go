package main

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/internal/termsafe"
)

// maxCompletions bounds what one completion offers.
const maxCompletions = 100

// completeArgs answers shell completion for a command: its flag names after a '-', chat ids
// from the database for a chat argument, tags for the tag command's later arguments. It never
// fails loudly: a shell cannot show an error, so a problem completes nothing.
func (m *Main) completeArgs(ctx context.Context, c command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	fs := m.describe(ctx, c)
	if fs == nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	if strings.HasPrefix(toComplete, "-") {
		var out []cobra.Completion
		fs.VisitAll(func(f *pflag.Flag) {
			if name := "--" + f.Name; strings.HasPrefix(name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(name, f.Usage))
			}
		})
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	_ = fs.Parse(args) // --db, --config and --scope as typed so far
	positional := len(fs.Args())
	switch {
	case c.complete == argsChatID && positional == 0, c.complete == argsChatThenTags && positional == 0:
		return m.completeChatIDs(ctx, fs, toComplete), cobra.ShellCompDirectiveNoFileComp
	case c.complete == argsChatThenTags:
		return m.completeTags(ctx, fs, toComplete), cobra.ShellCompDirectiveNoFileComp
	case c.complete == argsChatID:
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// describe returns a command's flag set without running it.
func (m *Main) describe(ctx context.Context, c command) *pflag.FlagSet {
	d := *m
	d.describing, d.described, d.store = true, nil, nil
	if err := c.run(ctx, &d, nil); !errors.Is(err, errDescribed) {
		return nil
	}
	return d.described
}

// openForCompletion opens the history the command would use, read-only.
func (m *Main) openForCompletion(ctx context.Context, fs *pflag.FlagSet) (*app, string, bool) {
	value := func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	db, config := value("db"), value("config")
	a, err := m.open(ctx, &common{db: &db, config: &config}, true)
	if err != nil {
		return nil, "", false
	}
	return a, value("scope"), true
}

func (m *Main) completeChatIDs(ctx context.Context, fs *pflag.FlagSet, toComplete string) []cobra.Completion {
	a, scope, ok := m.openForCompletion(ctx, fs)
	if !ok {
		return nil
	}
	res, err := a.svc.FindChats(a.ctx, annals.ListParams{
		Scope:  annals.Scope(scope),
		Filter: annals.ChatQuery{IDPrefix: toComplete, IncludeArchived: true},
		Page:   annals.PageParams{Limit: maxCompletions},
	})
	if err != nil {
		return nil
	}
	out := make([]cobra.Completion, 0, len(res.Chats))
	for _, c := range res.Chats {
		if !strings.HasPrefix(c.ID, toComplete) {
			continue // matched by its source id: completing it would not extend the word typed
		}
		out = append(out, cobra.CompletionWithDesc(c.ID, termsafe.String(oneLine(c.Title))))
	}
	return out
}

func (m *Main) completeTags(ctx context.Context, fs *pflag.FlagSet, toComplete string) []cobra.Completion {
	a, scope, ok := m.openForCompletion(ctx, fs)
	if !ok {
		return nil
	}
	res, err := a.svc.FindChats(a.ctx, annals.ListParams{
		Scope:  annals.Scope(scope),
		Filter: annals.ChatQuery{IncludeArchived: true},
		Page:   annals.PageParams{Limit: 500},
	})
	if err != nil {
		return nil
	}
	var tags []string
	for _, c := range res.Chats {
		for _, t := range c.Tags {
			if strings.HasPrefix(t, toComplete) && !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	slices.Sort(tags)
	out := make([]cobra.Completion, 0, min(len(tags), maxCompletions))
	for _, t := range tags[:min(len(tags), maxCompletions)] {
		out = append(out, termsafe.String(t))
	}
	return out
}
