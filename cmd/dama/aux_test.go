package main

import (
	"path/filepath"
	"slices"
	"testing"

	"dama/model"
	"dama/runfolder"
)

// A run with the reply head (model.aux_reply) trains it: the metrics log
// its loss, the checkpoints keep it, and the models it makes play in an
// arena and export like any other.
func TestTrainWithAuxReply(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a training process")
	}
	dir := filepath.Join(t.TempDir(), "run")
	cfg := append(slices.Clip(fastRun), "--set", "run.generations=1", "--set", "model.aux_reply=true", "--set", "arena.gating=none")
	out, err := damaCmd(append([]string{"train", "--run", dir}, cfg...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train: %v\n%s", err, out)
	}
	checkRun(t, dir, 1)
	run := &runfolder.Run{Dir: dir}
	n := 0
	if err := runfolder.ReadJSONL(run, runfolder.MetricsFile, func(m runfolder.MetricRecord) error {
		n++
		if !(m.AuxLoss > 0) {
			t.Errorf("step %d: aux_loss %v", m.Step, m.AuxLoss)
		}
		return nil
	}); err != nil || n == 0 {
		t.Fatalf("metrics: %d records, %v", n, err)
	}
	best, err := run.BestPath()
	if err != nil {
		t.Fatal(err)
	}
	ck, err := model.Load(best)
	if err != nil || !ck.Net.Config.AuxReply || ck.Step == 0 {
		t.Fatalf("best model %s: %v (%v), want a trained network with the reply head", best, ck, err)
	}
	if code, _, errs := runCmd(t, "arena", "--a", best+"@4", "--b", "random", "--games", "2", "--parallel", "2", "--quiet"); code != 0 {
		t.Errorf("arena with the reply-head model: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "export", "--model", best, "--format", "onnx", "--out", filepath.Join(t.TempDir(), "m.onnx")); code != 0 {
		t.Errorf("export of the reply-head model: exit %d: %s", code, errs)
	}
}
