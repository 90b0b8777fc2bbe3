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

// Bench is what ThreadMeter.Report needs of a *testing.B.
type Bench interface {
	ReportMetric(n float64, unit string)
	Elapsed() time.Duration
}

// ThreadMeter measures the calling thread's CPU time from its start, for a
// benchmark that holds its thread with runtime.LockOSThread.
type ThreadMeter struct {
	t0 time.Duration
	ok bool
}

// StartThread starts a ThreadMeter on the calling thread.
func StartThread() ThreadMeter {
	t0, ok := Thread()
	return ThreadMeter{t0, ok}
}

// Report reports n per second of b's wall time as unit and, where the
// thread's CPU time is measured, per second of it as unit-cpu.
func (m ThreadMeter) Report(b Bench, n float64, unit string) {
	b.ReportMetric(n/b.Elapsed().Seconds(), unit)
	if t1, ok := Thread(); ok && m.ok && t1 > m.t0 {
		b.ReportMetric(n/(t1-m.t0).Seconds(), unit+"-cpu")
	}
}
