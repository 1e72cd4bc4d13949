//go:build !linux

package bench

import "errors"

var errNoFadvise = errors.New("dropping a file from the page cache (posix_fadvise, mincore) is implemented on Linux only")

func dropFromPageCache(string) error        { return errNoFadvise }
func residentShare(string) (float64, error) { return 0, errNoFadvise }
