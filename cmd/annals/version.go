package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X main.Version=v1.2.3"; otherwise it comes from
// the module's build information.
var Version = ""

type versionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	GoVersion string `json:"go_version"`
}

// String is the one-line version: "annals v1.2.3 0123456789ab (go1.26.0)".
func (v versionInfo) String() string {
	rev := ""
	if v.Revision != "" {
		rev = " " + v.Revision[:min(12, len(v.Revision))]
	}
	return fmt.Sprintf("annals %s%s (%s)", v.Version, rev, v.GoVersion)
}

func buildVersion() versionInfo {
	v := versionInfo{Version: Version, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v.Revision = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	return v
}

func runVersion(ctx context.Context, m *Main, args []string) error {
	fs := m.flagSet("version", "[--json]", "Print the annals version, the source revision and the Go version it was built with.")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := m.parse(fs, args); err != nil {
		return err
	}
	v := buildVersion()
	if *asJSON {
		return json.NewEncoder(m.Stdout).Encode(v)
	}
	_, err := fmt.Fprintln(m.Stdout, v.String())
	return err
}
