package cputime

import (
	"runtime"
	"testing"
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
	if p1-p0 < t1-t0 {
		t.Errorf("process CPU time %v below the thread's %v", p1-p0, t1-t0)
	}
}
