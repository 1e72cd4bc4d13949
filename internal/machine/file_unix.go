//go:build unix

package machine

import (
	"fmt"
	"os"
	"syscall"
)

// FileID returns the identity of the file at path that a copy does not keep: its inode
// ("inode:N"). Moving the file within its file system keeps it; a copy, a restore from a backup
// or a move to another file system gets a new one. The device number is left out because it can
// change between boots for the same disk.
func FileID(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("stat database file: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("stat database file %s: no inode", path)
	}
	return fmt.Sprintf("inode:%d", st.Ino), nil
}
