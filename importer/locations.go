package importer

import (
	"context"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// ImportLocations imports what paths name (files or directories, each file's format detected
// unless format is given), or, with no paths, everything found in the default locations of the
// formats under home. It returns the report and the paths that no format claims (skipped).
// Errors: invalid (no paths and no home to search), and the errors of Resolve and Import.
func (im *Importer) ImportLocations(ctx context.Context, home string, paths []string, format reader.Format) (*Report, []string, error) {
	var cands []Candidate
	var unknown []string
	if len(paths) == 0 {
		if home == "" {
			return nil, nil, annals.Errorf(annals.EINVALID, "no home directory to find default locations in; name the paths to import")
		}
		cands, _ = im.Discover(home)
	} else {
		var err error
		if cands, unknown, err = im.Resolve(paths, format); err != nil {
			return nil, nil, err
		}
	}
	report, err := im.Import(ctx, cands)
	return report, unknown, err
}
