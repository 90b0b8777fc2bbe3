package runfolder

import (
	"os"
	"testing"
)

func TestLastJSONL(t *testing.T) {
	r := tempRun(t)
	var m MetricRecord
	if ok, err := LastJSONL(r, MetricsFile, &m); ok || err != nil {
		t.Fatalf("missing file: %v, %v; want false, nil", ok, err)
	}
	for i := 1; i <= 3000; i++ { // longer than one read of the tail
		if err := r.AppendJSONL(MetricsFile, MetricRecord{Gen: i / 1000, Step: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// A cut-off last line is not a line.
	f, _ := os.OpenFile(r.Path(MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"gen":9,"st`)
	f.Close()
	if ok, err := LastJSONL(r, MetricsFile, &m); !ok || err != nil || m.Step != 3000 || m.Gen != 3 {
		t.Errorf("last line: %v, %v, %+v; want step 3000 of gen 3", ok, err, m)
	}
	// The next append cuts the partial line and adds whole ones.
	if err := r.AppendJSONL(MetricsFile, MetricRecord{Gen: 4, Step: 3001}, MetricRecord{Gen: 4, Step: 3002}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := ReadJSONL(r, MetricsFile, func(m MetricRecord) error {
		n++
		if m.Step != int64(n) {
			t.Fatalf("line %d has step %d", n, m.Step)
		}
		return nil
	})
	if err != nil || n != 3002 {
		t.Errorf("after repair: %d lines, %v; want 3002", n, err)
	}
}

// tempRun returns a run in a new temporary folder.
func tempRun(t *testing.T) *Run {
	t.Helper()
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r
}
