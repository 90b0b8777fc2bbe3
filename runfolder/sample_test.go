package runfolder

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sampleRun is a run folder written by dama before the run folder code
// moved out of package train (one tiny generation, checkpoints left out;
// the tests that need them write seeded ones).
const sampleRun = "testdata/run-2026-12-01"

// copySample copies the committed run folder sample into a temporary
// folder and returns it, opened.
func copySample(t *testing.T) *Run {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(dst, os.DirFS(sampleRun)); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A run folder written before the split reads as it did: its archive,
// plan, record and logs (issue 11, point 4).
func TestSampleRunReads(t *testing.T) {
	r := copySample(t)
	if err := r.CheckRecords(); err != nil {
		t.Errorf("records: %v", err)
	}
	data, err := os.ReadFile(r.Path(ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadArchivedConfig(data); err != nil {
		t.Errorf("archived configuration: %v", err)
	}
	if !r.Started() {
		t.Error("the sample run has not started")
	}
	plans, err := r.Plans(2)
	want := []Plan{{Gen: 1, Chunks: []ChunkInfo{{Name: "chunk-main-000000.dgames", Games: 4, Positions: 117}}}}
	if err != nil || !reflect.DeepEqual(plans, want) {
		t.Errorf("plans %+v, %v; want %+v", plans, err, want)
	}
	if c, err := r.ConsumedChunks(); err != nil || !reflect.DeepEqual(c, map[string]bool{"chunk-main-000000.dgames": true}) {
		t.Errorf("consumed chunks %v, %v", c, err)
	}
	rec, err := r.ReadRecord(1)
	if err != nil || rec.Gen != 1 || rec.Games != 4 || rec.Positions != 117 || rec.Candidate != "rejected/0001.ckpt" || rec.Best != "accepted/0000.ckpt" {
		t.Errorf("generation 1 record %+v, %v", rec, err)
	}
	if best, err := r.Best(); err != nil || best != "accepted/0000.ckpt" {
		t.Errorf("best %q, %v", best, err)
	}
	var steps []int64
	if err := ReadJSONL(r, MetricsFile, func(m MetricRecord) error { steps = append(steps, m.Step); return nil }); err != nil || !reflect.DeepEqual(steps, []int64{1, 2, 3, 4}) {
		t.Errorf("metric steps %v, %v", steps, err)
	}
	var a ArenaRecord
	if ok, err := LastJSONL(r, ArenaFile, &a); !ok || err != nil || a.Gen != 1 || a.Verdict != "reject" || a.Games != 2 {
		t.Errorf("arena record %+v, %v, %v", a, ok, err)
	}
}
