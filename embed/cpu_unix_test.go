//go:build unix

package embed_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used so far; the timing
// tests report it per call beside wall times, which a loaded machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
