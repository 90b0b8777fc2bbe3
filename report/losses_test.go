package report

import (
	"testing"

	"dama/runfolder"
)

// TestLossSeriesBounded checks that the loss buckets stay bounded, cover
// every line, and hold the means of equal-width runs of steps.
func TestLossSeriesBounded(t *testing.T) {
	for _, n := range []int{1, 7, 2*maxLossBuckets - 1, 2 * maxLossBuckets, 5*maxLossBuckets + 3} {
		var s lossSeries
		for i := 1; i <= n; i++ {
			s.add(runfolder.MetricRecord{Step: int64(i), PolicyLoss: float64(2 * i), ValueLoss: 1, Total: float64(2*i + 1)})
		}
		pts := s.points()
		if len(pts) > 2*maxLossBuckets {
			t.Errorf("n=%d: %d points, want at most %d", n, len(pts), 2*maxLossBuckets)
		}
		seen := 0
		for i, p := range pts {
			first := float64(seen + 1)
			last := float64(seen + p.Steps)
			if want := (first + last) / 2; p.Step != want || p.Policy != 2*want || p.Total != 2*want+1 || p.Value != 1 {
				t.Fatalf("n=%d point %d: got %+v, want step %v", n, i, p, want)
			}
			if i < len(pts)-1 && p.Steps != s.width {
				t.Fatalf("n=%d point %d: %d steps, want the bucket width %d", n, i, p.Steps, s.width)
			}
			seen += p.Steps
		}
		if seen != n {
			t.Errorf("n=%d: buckets cover %d lines", n, seen)
		}
	}
}
