package cputime

import (
	"runtime"
	"testing"
	"time"
)

func TestCPUTimeGrowsWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	p0, okp := Process()
	if !ok || !okp {
		t.Skip("CPU time is not measured on this system")
	}
	x := 1.0
	for i := 0; i < 50_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	t1, _ := Thread()
	p1, _ := Process()
	if t1 <= t0 || p1 <= p0 {
		t.Errorf("CPU time did not grow with work: thread %v -> %v, process %v -> %v (x=%g)", t0, t1, p0, p1, x)
	}
	// getrusage splits each task's precise run time into user and system
	// time by sampled ticks, separately for the thread and the process, so
	// the two sums may disagree by a little: allow 5%, far less than a
	// process clock that missed the thread's work would be off by.
	if p1-p0 < (t1-t0)*95/100 {
		t.Errorf("process CPU time %v well below the thread's %v", p1-p0, t1-t0)
	}
}

type fakeBench struct {
	elapsed time.Duration
	got     map[string]float64
}

func (f *fakeBench) ReportMetric(n float64, unit string) { f.got[unit] = n }
func (f *fakeBench) Elapsed() time.Duration              { return f.elapsed }

func TestThreadMeterReports(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, ok := Thread(); !ok {
		t.Skip("CPU time is not measured on this system")
	}
	m := StartThread()
	x := 1.0
	for i := 0; i < 20_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	b := &fakeBench{elapsed: 2 * time.Second, got: map[string]float64{}}
	m.Report(b, 1000, "ops/s")
	if b.got["ops/s"] != 500 {
		t.Errorf("ops/s = %v, want 500 (1000 over 2s of wall time)", b.got["ops/s"])
	}
	if r, ok := b.got["ops/s-cpu"]; !ok || r <= 0 {
		t.Errorf("ops/s-cpu = %v, %v; want a positive rate (x=%g)", r, ok, x)
	}
}
