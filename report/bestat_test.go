package report

import (
	"strings"
	"testing"

	"dama/runfolder"
)

// TestBestAtCPU: each point gets the best model after the last generation
// whose cumulative CPU time fits in it.
func TestBestAtCPU(t *testing.T) {
	row := func(gen int, cpu float64, best string) GenerationRow {
		return GenerationRow{GenerationRecord: runfolder.GenerationRecord{Gen: gen, CPUSec: cpu, Best: best}}
	}
	r := &Report{Generations: []GenerationRow{
		row(1, 1800, "accepted/0001.ckpt"), row(2, 1800, "accepted/0001.ckpt"), row(3, 3600, "accepted/0003.ckpt"),
	}}
	got := r.BestAtCPU([]float64{0.4, 0.5, 1.5, 2, 9})
	want := []struct {
		gen  int
		best string
	}{{0, ""}, {1, "accepted/0001.ckpt"}, {2, "accepted/0001.ckpt"}, {3, "accepted/0003.ckpt"}, {3, "accepted/0003.ckpt"}}
	for i, w := range want {
		if got[i].Gen != w.gen || got[i].Best != w.best {
			t.Errorf("point %g: generation %d best %q, want %d %q", got[i].CPUHours, got[i].Gen, got[i].Best, w.gen, w.best)
		}
	}
	if !got[3].Reached || got[4].Reached {
		t.Errorf("reached: 2 h %v, 9 h %v; the run used 2 h", got[3].Reached, got[4].Reached)
	}
	var b strings.Builder
	if err := WriteBestAt(&b, "run", append(got[:2:2], got[4])); err != nil {
		t.Fatal(err)
	}
	if b.String() != "0.4 CPU-hours: no generation finished yet\n0.5 CPU-hours: generation 1 (0.50 CPU-hours), best run/accepted/0001.ckpt\n9 CPU-hours: not reached yet (generation 3, 2.00 CPU-hours so far, best run/accepted/0003.ckpt)\n" {
		t.Errorf("printed %q", b.String())
	}
	for _, bad := range []string{"", "0", "-1", "1,x", "Inf"} {
		if _, err := ParseHours(bad); err == nil {
			t.Errorf("ParseHours(%q): no error", bad)
		}
	}
	if h, err := ParseHours("0.5, 1,8"); err != nil || len(h) != 3 || h[2] != 8 {
		t.Errorf("ParseHours: %v %v", h, err)
	}
}
