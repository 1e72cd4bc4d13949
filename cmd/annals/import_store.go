package main

import (
	"context"
	"time"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer"
)

// importStore joins the redacting capture path and the store's import state.
type importStore struct {
	annals.CaptureStore
	annals.ImportStateStore
}

// noImportState is the store of a dry run without a database: nothing was imported before,
// and a dry run writes nothing.
type noImportState struct{}

var errNoDatabase = annals.Errorf(annals.EINVALID, "no database (a dry run writes nothing)")

func (noImportState) Capture(context.Context, []annals.CaptureOp) (*annals.CaptureResult, error) {
	return nil, errNoDatabase
}
func (noImportState) CreateChat(context.Context, *annals.Chat) (*annals.Chat, error) {
	return nil, errNoDatabase
}
func (noImportState) AppendEntries(context.Context, string, []*annals.Entry) (*annals.AppendResult, error) {
	return nil, errNoDatabase
}
func (noImportState) TruncateChat(context.Context, string, annals.TruncatePoint) (*annals.TruncateResult, error) {
	return nil, errNoDatabase
}
func (noImportState) RecordRun(context.Context, *annals.Run) (*annals.Run, error) {
	return nil, errNoDatabase
}
func (noImportState) FindImportSource(_ context.Context, path string) (*annals.ImportSource, error) {
	return nil, annals.Errorf(annals.ENOTFOUND, "no import state for %s", path)
}
func (noImportState) FindImportSources(context.Context, annals.ImportSourceFilter) ([]*annals.ImportSource, error) {
	return nil, nil
}
func (noImportState) SaveImportSource(context.Context, *annals.ImportSource) error {
	return errNoDatabase
}
func (noImportState) MarkImportSourceGone(context.Context, string, time.Time) error {
	return errNoDatabase
}
func (noImportState) SavePendingTitle(context.Context, annals.PendingTitle) error {
	return errNoDatabase
}
func (noImportState) FindPendingTitles(context.Context) ([]annals.PendingTitle, error) {
	return nil, nil
}
func (noImportState) DeletePendingTitle(context.Context, string) error { return errNoDatabase }
func (noImportState) ChatIDBySourceID(_ context.Context, id string) (string, error) {
	return "", annals.Errorf(annals.ENOTFOUND, "no chat holds source id %s", id)
}

// importTitles gives an imported chat the title its source named, unless a person gave it one;
// a derived title (the first prompt) gives way to the source's. Titles are redacted like every
// other imported text.
func importTitles(a *app) *importer.StoreTitles {
	clean := func(s string) string { return s }
	if a.redactor != nil {
		clean = func(s string) string {
			out, _ := a.redactor.RedactText(s)
			return out
		}
	}
	return &importer.StoreTitles{Store: a.store, Clean: clean}
}
