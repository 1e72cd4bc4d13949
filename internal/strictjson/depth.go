package strictjson

import (
	"io"

	"github.com/annals-dev/annals"
)

// depthScan follows the nesting of JSON text byte by byte: the depth of arrays and objects
// outside strings. It reads any run of JSON values (one document or JSON Lines) in one pass and
// keeps no more state than a few integers, so a bound on depth costs nothing per level.
type depthScan struct {
	max      int
	depth    int
	inString bool
	escaped  bool
	offset   int64 // bytes scanned so far
}

// scan feeds p to the scanner and returns the offset (from the start of the text) of the first
// '[' or '{' that goes deeper than max, or -1.
func (s *depthScan) scan(p []byte) int64 {
	for i, c := range p {
		switch {
		case c == '\n' && s.inString:
			// JSON text never holds a raw newline inside a string: this string is broken, and
			// the next line (of JSON Lines) is read afresh rather than as its continuation.
			s.inString, s.escaped = false, false
		case s.escaped:
			s.escaped = false
		case s.inString:
			switch c {
			case '\\':
				s.escaped = true
			case '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '[' || c == '{':
			s.depth++
			if s.depth > s.max {
				return s.offset + int64(i)
			}
		case (c == ']' || c == '}') && s.depth > 0:
			s.depth--
		}
	}
	s.offset += int64(len(p))
	return -1
}

// TooDeep is the error for JSON nested deeper than max levels, found at byte offset at.
func TooDeep(max int, at int64) error {
	return annals.Errorf(annals.EINVALID, "the request body nests arrays and objects more than %d levels deep (the level past the bound opens at byte %d); at most %d levels are allowed", max, at, max)
}

// CheckDepth refuses JSON text (one value or several, such as JSON Lines) that nests arrays and
// objects more than max levels deep. It runs in one pass over body, whatever its shape.
func CheckDepth(body []byte, max int) error {
	s := depthScan{max: max}
	if at := s.scan(body); at >= 0 {
		return TooDeep(max, at)
	}
	return nil
}

// DepthReader passes a JSON body through while following its nesting, and fails the read that
// would go past max levels, before any decoder sees that byte. It bounds every decoder reading
// from it at once, whatever the decoder does with deep input.
type DepthReader struct {
	r    io.Reader
	scan depthScan
	err  error
}

// NewDepthReader returns a reader of r that refuses nesting deeper than max.
func NewDepthReader(r io.Reader, max int) *DepthReader {
	return &DepthReader{r: r, scan: depthScan{max: max}}
}

// Read reads from the underlying reader; past the bound it returns only the bytes before the
// offending one, then the TooDeep error on every later call.
func (d *DepthReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	start := d.scan.offset
	if at := d.scan.scan(p[:n]); at >= 0 {
		d.err = TooDeep(d.scan.max, at)
		return int(at - start), d.err
	}
	return n, err
}

// Err is the TooDeep error once the body went past the bound, else nil.
func (d *DepthReader) Err() error { return d.err }
