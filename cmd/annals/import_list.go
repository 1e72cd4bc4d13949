package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/annals-dev/annals/importer"
)

// importLocation is one default location of a format and what is there on this machine.
type importLocation struct {
	Pattern string `json:"pattern"`
	Matches int    `json:"matches"`
}

// importFormatInfo is one line of annals import --list (and a row of docs/IMPORT.md's format
// index, which a test holds to the same registry).
type importFormatInfo struct {
	Format    string           `json:"format"`
	Locations []importLocation `json:"locations"`
	// Resume is the tool's command to continue a session, "<session id>" standing for the id.
	Resume string `json:"resume,omitempty"`
}

// listImportFormats describes every format: its default locations under home and how many
// files or folders each matches on this machine.
func listImportFormats(formats []importer.Format, home string) []importFormatInfo {
	var out []importFormatInfo
	for _, f := range formats {
		info := importFormatInfo{Format: f.Name(), Locations: []importLocation{}, Resume: importer.ResumeTemplate(f)}
		if home != "" {
			for _, pat := range f.DefaultPaths(home) {
				matches, _ := importer.Glob(pat) // a bad pattern matches nothing
				info.Locations = append(info.Locations, importLocation{Pattern: pat, Matches: len(matches)})
			}
		}
		out = append(out, info)
	}
	return out
}

// writeImportList prints annals import --list: per format, each default location (with ~ for
// the home directory) and whether it exists here.
func writeImportList(w io.Writer, formats []importer.Format, home string, asJSON bool) error {
	infos := listImportFormats(formats, home)
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"formats": infos})
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "FORMAT\tDEFAULT LOCATION\tON THIS MACHINE\tRESUME")
	for _, info := range infos {
		if len(info.Locations) == 0 {
			fmt.Fprintf(tw, "%s\t(none: name the files)\t\t%s\n", info.Format, info.Resume)
		}
		for i, loc := range info.Locations {
			name, resume := info.Format, info.Resume
			if i > 0 {
				name, resume = "", ""
			}
			found := "not found"
			if loc.Matches > 0 {
				found = fmt.Sprintf("found (%d)", loc.Matches)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, tildePath(loc.Pattern, home), found, resume)
		}
	}
	return tw.Flush()
}

// tildePath writes a path under home as ~/..., as a person would type it.
func tildePath(p, home string) string {
	if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

// maxUnknownShown is how many files no format reads are named one by one.
const maxUnknownShown = 20

// reportUnknown names the files no format reads, each once, and how many more there were.
func reportUnknown(w io.Writer, unknown []string) {
	for i, u := range unknown {
		if i == maxUnknownShown {
			fmt.Fprintf(w, "annals: ... and %d more files that no format reads; skipped\n", len(unknown)-maxUnknownShown)
			return
		}
		if isCaptureFormat(u) {
			fmt.Fprintf(w, "annals: %s: the capture format, which 'annals ingest %s' reads; skipped\n", u, u)
			continue
		}
		fmt.Fprintf(w, "annals: %s: not a format annals imports; skipped\n", u)
	}
}
