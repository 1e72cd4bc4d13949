//go:build !linux

package bench

import (
	"errors"
	"os"
	"time"
)

// On other systems the harness still runs; CPU times, the disk line and peak RSS are left out.

func processCPU() time.Duration     { return 0 }
func maxRSS(*os.ProcessState) int64 { return 0 }
func kernelRelease() string         { return "" }
func diskInfo(string) string        { return "" }

func peakRSS(int) (int64, error) { return 0, errors.New("peak RSS is read from /proc, on Linux only") }

func residentSplit(int) (int64, int64, error) {
	return 0, 0, errors.New("resident sizes are read from /proc, on Linux only")
}
