// Package replicate is the host side of replication (docs/REPLICATION.md): the push worker
// that drains a database's outbox to a remote annals server, lane by lane, with backoff and
// per-lane quarantine, and the status and verify reports. It reaches the store only through
// the root's contracts (annals.HostStore, annals.Outbox, annals.PushStateStore) and the remote
// only over HTTP.
package replicate

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/annals-dev/annals"
)

// KeyEnv is the environment variable the remote's API key is read from first.
const KeyEnv = "ANNALS_REMOTE_KEY"

// Remote is the configuration's remote block: where the shared collection is and how to find
// its key.
type Remote struct {
	Endpoint string
	// APIKeyEnv names an environment variable holding the key (after ANNALS_REMOTE_KEY).
	APIKeyEnv string
	// APIKey is a key written in the file itself: accepted last, with a warning.
	APIKey string
}

// ParseEndpoint checks a remote endpoint and returns it without trailing slashes: an http or
// https URL with a host and no credentials, query or fragment.
func ParseEndpoint(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw == "" {
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint %q is not a URL (want http(s)://host[:port][/path])", raw)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint must be http or https, not %q", u.Scheme)
	case u.Host == "":
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint %q has no host", raw)
	case u.User != nil:
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint must not carry credentials (put the key in %s or the variable named by remote.api_key_env)", KeyEnv)
	case u.RawQuery != "" || u.ForceQuery:
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint must not have a query")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "", annals.Errorf(annals.EINVALID, "remote.endpoint must not have a fragment")
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// ResolveKey finds the remote's key: ANNALS_REMOTE_KEY, then the variable named by
// remote.api_key_env, then remote.api_key (warning is then set: a key in a file is easy to
// leak). A remote block without a key is an error, so nothing starts without one.
func ResolveKey(getenv func(string) string, r Remote) (key, warning string, err error) {
	if v := strings.TrimSpace(getenv(KeyEnv)); v != "" {
		return v, "", nil
	}
	if r.APIKeyEnv != "" {
		if v := strings.TrimSpace(getenv(r.APIKeyEnv)); v != "" {
			return v, "", nil
		}
	}
	if v := strings.TrimSpace(r.APIKey); v != "" {
		return v, "remote.api_key holds the key in the config file; prefer " + KeyEnv + " or remote.api_key_env", nil
	}
	where := KeyEnv
	if r.APIKeyEnv != "" {
		where += " or " + r.APIKeyEnv
	}
	return "", "", annals.Errorf(annals.EINVALID, "the remote block has no API key: set %s (an operator key of the remote's tenant, from 'annals keys create --role operator' there)", where)
}

// Fingerprint names a key without revealing it: the first 12 hex digits of its SHA-256.
func Fingerprint(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])[:12]
}
