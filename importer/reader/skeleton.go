package reader

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// The skeleton every file reader repeats, written once: the detection of a JSON Lines format by
// its first record, and the opening of a source read line by line or whole, with errors that
// name the format and the file.

// FirstRecord returns the top-level fields of head's first non-empty line (a JSON Lines
// format's first record, which may be cut short; see LineFields). ok is false when head holds
// no line or the line is not a JSON object.
func FirstRecord(head []byte) (fields map[string]json.RawMessage, ok bool) {
	lines := HeadLines(head, 1)
	if len(lines) == 0 {
		return nil, false
	}
	return LineFields(lines[0])
}

// EachLine opens the source's file and calls fn with each line (the package's EachLine: lines
// over MaxLineBytes are reported through warnf and skipped). Errors name the format.
func (s *Source) EachLine(ctx context.Context, format string, fn func(n int, line []byte) error, warnf func(int, string, ...any)) error {
	fh, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", format, err)
	}
	defer fh.Close()
	return EachLine(ctx, fh, fn, warnf)
}

// ReadAll reads a source that is read whole (a JSON document, an export), at most limit bytes.
// Errors name the format and the file.
func (s *Source) ReadAll(format string, limit int64) ([]byte, error) {
	r, err := s.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", format, s.Path, err)
	}
	return data, nil
}

// EachObject is EachLine over a JSON Lines source whose lines are objects: fn gets each line
// decoded; a line that is not a JSON object is reported through out and skipped.
func (s *Source) EachObject(ctx context.Context, format string, out Output, fn func(n int, o JSONObject) error) error {
	return s.EachLine(ctx, format, func(n int, line []byte) error {
		o, err := DecodeObject(line)
		if err != nil {
			out.Warnf(n, "not a JSON object: %v", err)
			return nil
		}
		return fn(n, o)
	}, out.Warnf)
}
