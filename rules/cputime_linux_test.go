package rules

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time used so far by the calling OS thread, so
// that benchmarks can report a rate that other processes sharing the cores
// disturb less than wall-clock time. The caller must hold its thread
// (runtime.LockOSThread).
func threadCPU() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
