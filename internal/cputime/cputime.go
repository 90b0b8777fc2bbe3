// Package cputime reads the CPU time a thread or the process has used, for
// benchmarks that report rates per second of CPU time: on a machine shared
// with other work these are steadier than wall-clock rates.
package cputime

import "time"

// Thread returns the CPU time (user and system) used so far by the calling
// OS thread; ok is false where it cannot be measured. Callers hold their
// thread with runtime.LockOSThread between two readings.
func Thread() (d time.Duration, ok bool) { return thread() }

// Process returns the CPU time (user and system) used so far by the whole
// process; ok is false where it cannot be measured.
func Process() (d time.Duration, ok bool) { return process() }
