package reader

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
)

func EachLine(ctx context.Context, fh *os.File, fn func(n int, line []byte) error, warnf func(int, string, ...any)) error {
	r := bufio.NewReaderSize(fh, 256<<10)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, _, tooLong, err := ReadLine(r, MaxLineBytes)
		if len(b) > 0 || tooLong {
			n++
			if tooLong {
				warnf(n, "line is longer than %d bytes; skipped", MaxLineBytes)
			} else if ferr := fn(n, TrimEOL(b)); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func ReadHead(path string) ([]byte, error) {
	r, err := OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, HeadSize)
	n, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

// MaxLineBytes bounds one line of a line format. A longer line is skipped with a warning and
// read past without being kept in memory.
const MaxLineBytes = 64 << 20

// ReadLine returns the next line with its line ending. complete is false for a last line
// without '\n'. A line longer than max is read to its end but not kept (tooLong).
func ReadLine(r *bufio.Reader, max int) (line []byte, complete, tooLong bool, err error) {
	var buf []byte
	n := 0
	for {
		frag, err := r.ReadSlice('\n')
		n += len(frag)
		if !tooLong {
			if n > max+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, frag...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, true, true, nil
			}
			return buf, true, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if tooLong {
				return nil, false, true, err
			}
			return buf, false, false, err
		}
	}
}

func TrimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
