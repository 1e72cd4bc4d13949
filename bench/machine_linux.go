package bench

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/annals-dev/annals/internal/human"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxRSS is the peak resident set size of a finished child process.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // kilobytes on Linux
	}
	return 0
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return "Linux " + strings.TrimSpace(string(b))
}

// diskInfo names the device under dir and its size and free space.
func diskInfo(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	size := int64(st.Blocks) * int64(st.Bsize)
	free := int64(st.Bavail) * int64(st.Bsize)
	dev := ""
	if b, err := os.ReadFile("/proc/self/mounts"); err == nil {
		best := ""
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && strings.HasPrefix(dir, f[1]) && len(f[1]) >= len(best) {
				best, dev = f[1], f[0]+" ("+f[2]+")"
			}
		}
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s, %s free", dev, human.Bytes(size), human.Bytes(free)))
}

// peakRSS reads VmHWM, the peak resident set size, of a running process.
func peakRSS(pid int) (int64, error) {
	return procStatus(pid, "VmHWM")
}

// residentSplit reads the current anonymous and file-backed resident sizes of a process: pages
// of a memory-mapped database count in RSS as file pages, which the kernel can reclaim.
func residentSplit(pid int) (anon, file int64, err error) {
	if anon, err = procStatus(pid, "RssAnon"); err != nil {
		return 0, 0, err
	}
	file, err = procStatus(pid, "RssFile")
	return anon, file, err
}

// procStatus reads one size field (kB) of /proc/<pid>/status.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return parseKB(v), nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
