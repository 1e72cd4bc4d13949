package importer

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/annals-dev/annals"
	"github.com/annals-dev/annals/importer/reader"
)

// IsServerURL reports whether s looks like a connection URL (scheme://...) rather than a path.
// An absolute path never does, and a relative path holding "://" names no file anyone has.
func IsServerURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for _, r := range s[:i] {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// serverCandidate returns the candidate for a connection URL given on the command line: the
// first of formats that reads it. ok is false when raw is not a URL; a URL no format reads is
// an invalid error naming the formats that read servers.
func serverCandidate(formats []reader.Format, raw string) (c Candidate, ok bool, err error) {
	if !IsServerURL(raw) {
		return Candidate{}, false, nil
	}
	var readers []string
	for _, f := range formats {
		sp, isServer := f.(reader.ServerParser)
		if !isServer {
			continue
		}
		if sp.AcceptsServer(raw) {
			key, kerr := serverKey(raw)
			if kerr != nil {
				return Candidate{}, true, kerr
			}
			return Candidate{Path: key, Format: f, dsn: raw}, true, nil
		}
		readers = append(readers, f.Name())
	}
	if len(readers) == 0 {
		return Candidate{}, true, annals.Errorf(annals.EINVALID, "cannot import %s: none of the formats asked for reads a database server", redactedURL(raw))
	}
	return Candidate{}, true, annals.Errorf(annals.EINVALID, "cannot import %s: no format reads this kind of server (formats that read servers: %s, from a postgres:// URL)", redactedURL(raw), strings.Join(readers, ", "))
}

// serverKey is the name a server source is known by in the import state, reports and logs: the
// connection URL without its password (user info and password-like query parameters), so no
// secret is ever written down.
func serverKey(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" && u.Path == "" {
		return "", annals.Errorf(annals.EINVALID, "cannot import %s: not a valid connection URL (want e.g. postgres://user@host:5432/database)", redactedURL(dsn))
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	for k := range q {
		if strings.Contains(strings.ToLower(k), "password") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// redactedURL is dsn for an error message: its key when it parses, else only its scheme.
func redactedURL(dsn string) string {
	if key, err := serverKey(dsn); err == nil {
		return key
	}
	if i := strings.Index(dsn, "://"); i > 0 {
		return dsn[:i] + "://..."
	}
	return "the connection URL"
}

// candidateSource is the Source a candidate names: a server source as is, a file or directory
// stat'ed at its absolute path.
func candidateSource(c Candidate) (*reader.Source, fs.FileInfo, error) {
	if c.dsn != "" {
		return &reader.Source{Path: c.Path, DSN: c.dsn}, nil, nil
	}
	path, err := filepath.Abs(c.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving %s: %w", c.Path, err)
	}
	src, fi, err := statSource(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return src, fi, nil
}

// ParseServer is Parse for a database server source named by a connection URL: it returns
// what f emits reading it, without a store. Errors: invalid (not a URL f reads), and f's.
func ParseServer(ctx context.Context, f reader.Format, dsn string) (*Parsed, error) {
	c, ok, err := serverCandidate([]reader.Format{f}, dsn)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, annals.Errorf(annals.EINVALID, "%s is not a connection URL", redactedURL(dsn))
	}
	src := &reader.Source{Path: c.Path, DSN: c.dsn}
	p := &Parsed{Entries: map[string][]*annals.Entry{}, Titles: map[string]string{}, ChatTitles: map[string]string{}}
	col := &collector{p: p, src: src, seen: map[string]map[string]bool{}, chats: map[string]bool{}, resumers: resumers(Formats())}
	if err := f.(reader.FileParser).ParseFile(ctx, src, col); err != nil {
		return nil, err
	}
	return p, nil
}
