package bench

import (
	"context"
	"fmt"

	"github.com/annals-dev/annals/internal/human"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/history"
)

// The list, get, related and export scenarios: each times one history.Service call end to end.

// timeOp warms fn once, traced, then times it, in turn with replays of the SQL it ran where
// the store traces it (see measureTraced).
func (b *runner) timeOp(ctx context.Context, t *target, as context.Context, row Row, fn func(context.Context) error) (Row, error) {
	row, _, err := b.measureTraced(ctx, t, as, row, fn)
	if err != nil {
		return row, fmt.Errorf("%s %s: %w", row.Scenario, row.Case, err)
	}
	return row, nil
}

func (b *runner) listScenario(ctx context.Context, t *target) error {
	first := annals.ListParams{Scope: annals.ScopeGlobal}
	var res *annals.ChatPage
	row, err := b.timeOp(ctx, t, t.ctx, Row{Scenario: "list", Case: "first page (50), all tenants"}, func(ctx context.Context) (err error) {
		res, err = t.svc.FindChats(ctx, first)
		return err
	})
	if err != nil {
		return err
	}
	row.Hits = intp(res.Total)
	row.Target, row.Met = fmt.Sprintf("<%d ms", targetListFirstPage.Milliseconds()), boolp(row.P50 < ms(targetListFirstPage))
	b.add(row)

	deep := annals.ListParams{Scope: annals.ScopeGlobal, Page: annals.PageParams{Offset: max(0, res.Total-res.Limit)}}
	row, err = b.timeOp(ctx, t, t.ctx, Row{Scenario: "list", Case: fmt.Sprintf("deep page (offset %d)", deep.Page.Offset), Hits: intp(res.Total)}, func(ctx context.Context) error {
		_, err := t.svc.FindChats(ctx, deep)
		return err
	})
	if err != nil {
		return err
	}
	b.add(row)

	// A member's view: the tenant of the most recent chat, as an API key of that tenant sees it.
	if len(res.Chats) == 0 {
		return nil
	}
	tenant := res.Chats[0].TenantID
	member := annals.NewContextWithPrincipal(t.ctx, &annals.Principal{TenantID: tenant, Role: annals.RoleMember, Scopes: []annals.Scope{annals.ScopeTenant}})
	own := annals.ListParams{Scope: annals.ScopeTenant}
	var mine *annals.ChatPage
	row, err = b.timeOp(ctx, t, member, Row{Scenario: "list", Case: "first page (50), one tenant"}, func(ctx context.Context) (err error) {
		mine, err = t.svc.FindChats(ctx, own)
		return err
	})
	if err != nil {
		return err
	}
	row.Hits = intp(mine.Total)
	row.Target, row.Met = fmt.Sprintf("<%d ms", targetListFirstPage.Milliseconds()), boolp(row.P50 < ms(targetListFirstPage))
	b.add(row)
	return nil
}

func (b *runner) getScenario(ctx context.Context, t *target) error {
	big := b.data.bigChat
	n := b.data.bigStats.Entries
	for _, c := range []struct {
		name  string
		after int64
	}{
		{fmt.Sprintf("first page (100) of a %s-entry chat", countLabel(n)), 0},
		{fmt.Sprintf("last page (100) of a %s-entry chat", countLabel(n)), int64(max(0, n-history.DefaultGetLimit))},
	} {
		req := annals.GetParams{Chat: annals.ChatSelector{Scope: annals.ScopeGlobal, ID: big}, AfterSeq: c.after}
		var res *annals.ChatView
		row, err := b.timeOp(ctx, t, t.ctx, Row{Scenario: "get", Case: c.name}, func(ctx context.Context) (err error) {
			res, err = t.svc.GetChat(ctx, req)
			return err
		})
		if err != nil {
			return err
		}
		row.Hits = intp(len(res.Entries))
		b.add(row)
	}
	return nil
}

func (b *runner) relatedScenario(ctx context.Context, t *target) error {
	for _, c := range []struct {
		name string
		req  annals.RelatedParams
	}{
		{"by chat, at the candidate cap", annals.RelatedParams{Scope: annals.ScopeGlobal, ChatID: b.data.bigChat}},
		{"by free text, at the candidate cap", annals.RelatedParams{Scope: annals.ScopeGlobal, Query: "fix the failing invoice total test"}},
	} {
		var res *annals.RelatedPage
		row, err := b.timeOp(ctx, t, t.ctx, Row{Scenario: "related", Case: c.name}, func(ctx context.Context) (err error) {
			res, err = t.svc.FindRelated(ctx, c.req)
			return err
		})
		if err != nil {
			return err
		}
		row.Hits = intp(len(res.Results))
		row.Note = fmt.Sprintf("%d candidates ranked (cap %d), model %s", res.Candidates, res.CandidateCap, res.Model)
		b.add(row)
	}
	return nil
}

func (b *runner) exportScenario(ctx context.Context, t *target) error {
	req := annals.GetParams{Chat: annals.ChatSelector{Scope: annals.ScopeGlobal, ID: b.data.bigChat}, Format: annals.FormatMarkdown}
	var res *annals.ChatView
	row, err := b.timeOp(ctx, t, t.ctx, Row{Scenario: "export", Case: fmt.Sprintf("Markdown of a %s-entry chat", countLabel(b.data.bigStats.Entries))}, func(ctx context.Context) (err error) {
		res, err = t.svc.GetChat(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	size := len(res.Markdown)
	row.Note = fmt.Sprintf("%s of Markdown", human.Bytes(int64(size)))
	if row.P50 > 0 {
		row.Note += fmt.Sprintf(", %.0f MB/s", float64(size)/1e6/(row.P50/1000))
	}
	b.add(row)
	return nil
}
