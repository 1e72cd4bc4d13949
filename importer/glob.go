package importer

import (
	"errors"
	"github.com/annals-dev/annals/importer/reader"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Glob returns the existing paths matching pattern, sorted. A pattern is an absolute path whose
// elements use filepath.Match syntax, and an element "**" matches any number of directories
// (zero included). Directories that cannot be read are skipped: a default location that is not
// there, or not ours to read, is not an error.
func Glob(pattern string) ([]string, error) {
	pattern = filepath.Clean(pattern)
	if !strings.Contains(pattern, "**") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, err
		}
		sort.Strings(m)
		return m, nil
	}
	if _, err := filepath.Match(strings.ReplaceAll(pattern, "**", "x"), ""); err != nil {
		return nil, err
	}
	root := GlobRoot(pattern)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return fs.SkipAll
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if MatchGlob(pattern, p) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// GlobRoot is the longest leading directory of pattern without wildcards: the directory a
// walk (or a watch) of the pattern starts from.
func GlobRoot(pattern string) string {
	pattern = filepath.Clean(pattern)
	parts := strings.Split(pattern, string(filepath.Separator))
	var keep []string
	for _, p := range parts {
		if strings.ContainsAny(p, `*?[\`) {
			break
		}
		keep = append(keep, p)
	}
	if len(keep) == len(parts) {
		keep = keep[:len(keep)-1] // a literal path: its parent is the root
	}
	root := strings.Join(keep, string(filepath.Separator))
	if root == "" {
		return string(filepath.Separator)
	}
	return root
}

// MatchGlob reports whether path matches pattern (the syntax of Glob).
func MatchGlob(pattern, path string) bool {
	sep := string(filepath.Separator)
	return matchParts(strings.Split(filepath.Clean(pattern), sep), strings.Split(filepath.Clean(path), sep))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(name); i++ {
				if matchParts(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := filepath.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// statSource returns a source's size and modification time. A directory's are the total size
// and the newest modification time of everything beneath it, so a change anywhere in the tree
// changes its fingerprint.
func statSource(path string) (*reader.Source, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	src := &reader.Source{Path: path, Size: fi.Size(), ModTime: fi.ModTime()}
	if fi.IsDir() {
		src.Size = 0
		_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if !d.IsDir() {
				src.Size += info.Size()
			}
			if info.ModTime().After(src.ModTime) {
				src.ModTime = info.ModTime()
			}
			return nil
		})
	}
	return src, fi, nil
}
