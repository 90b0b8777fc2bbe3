//go:build unix

package model

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used: on
// a shared machine, work per CPU-second is a steadier measure than work
// per wall-clock second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
