package cputime

import (
	"syscall"
	"time"
)

const rusageThread = 1 // RUSAGE_THREAD, Linux only

func rusage(who int) (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

func thread() (time.Duration, bool)  { return rusage(rusageThread) }
func process() (time.Duration, bool) { return rusage(syscall.RUSAGE_SELF) }
