// Package machine identifies the machine the process runs on and the file a database lives in,
// for the fingerprint a database's host id is stored with (annals.Fingerprint).
package machine

import (
	"os"
	"strings"
)

// idFiles are where the operating system keeps its machine id (systemd and D-Bus).
var idFiles = []string{"/etc/machine-id", "/var/lib/dbus/machine-id"}

// ID returns the machine id: the first non-empty machine-id file, or "host:<hostname>" when
// there is none (macOS, Windows, minimal containers), or "unknown".
func ID() string {
	for _, f := range idFiles {
		if b, err := os.ReadFile(f); err == nil {
			if id := strings.TrimSpace(string(b)); id != "" {
				return id
			}
		}
	}
	if h := Hostname(); h != "" {
		return "host:" + h
	}
	return "unknown"
}

// Hostname returns the hostname, or "" when it cannot be read.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
