package main

import (
	"errors"
	"io"
	"os"

	"github.com/annals-dev/annals/importer"
	"github.com/annals-dev/annals/ingest"
)

// The capture format (annals ingest) and the formats of other tools (annals import) are read by
// different commands; a file given to the wrong one is named with the right one.

// importFormatOf names the import format that reads the file at path, or "" when none does.
func importFormatOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, importer.HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return ""
	}
	for _, format := range importer.Formats() {
		if format.Detect(path, head[:n]) {
			return format.Name()
		}
	}
	return ""
}

// isCaptureFormat reports whether the file at path starts with a valid capture-format record.
func isCaptureFormat(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = ingest.NewDecoder(f).Next()
	return err == nil
}
