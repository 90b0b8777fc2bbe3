package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dama/model"
)

// replyHeadSample is a checkpoint of format version 2, with the
// opponent-reply head that lost its A/B and was removed
// (docs/experiments.md#the-opponent-reply-head).
const replyHeadSample = "../../model/testdata/sample-v2-aux.ckpt"

// A version 2 checkpoint loads without its reply head for every use:
// dama model info says so, it plays in an arena and it exports.
func TestReplyHeadCheckpointPlays(t *testing.T) {
	code, out, errs := runCmd(t, "model", "info", replyHeadSample)
	if code != 0 || !strings.Contains(out, "format      version 2 (its opponent-reply head, removed since, is dropped on reading)\n") || strings.Contains(out, "aux reply") {
		t.Errorf("model info: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCmd(t, "arena", "--a", replyHeadSample+"@4", "--b", "random", "--games", "2", "--parallel", "2", "--quiet"); code != 0 {
		t.Errorf("arena with the version 2 sample: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "export", "--model", replyHeadSample, "--format", "onnx", "--out", filepath.Join(t.TempDir(), "m.onnx")); code != 0 {
		t.Errorf("export of the version 2 sample: exit %d: %s", code, errs)
	}
}

// A run asking for the reply head (an old configuration, or its archive)
// is refused in one line naming the key and the record; dama train --init
// from a version 2 checkpoint trains the network without the head.
func TestReplyHeadTraining(t *testing.T) {
	code, _, errs := runCmd(t, "train", "--run", filepath.Join(t.TempDir(), "run"), "--set", "model.aux_reply=true")
	if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "model.aux_reply: true was removed") || !strings.Contains(errs, "docs/experiments.md#the-opponent-reply-head") {
		t.Errorf("model.aux_reply=true: exit %d, stderr %q", code, errs)
	}
	if testing.Short() {
		t.Skip("starts a training process")
	}
	// The sample's shape: 1 block of 2 filters, policy 1, value 1/4.
	dir := filepath.Join(t.TempDir(), "run")
	cfg := append(slices.Clip(fastRun), "--set", "run.generations=1", "--set", "arena.gating=none",
		"--set", "model.blocks=1", "--set", "model.filters=2", "--set", "model.policy_filters=1", "--set", "model.value_filters=1", "--set", "model.value_hidden=4")
	out, err := damaCmd(append([]string{"train", "--run", dir, "--init", replyHeadSample}, cfg...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("dama train --init %s: %v\n%s", replyHeadSample, err, out)
	}
	checkRun(t, dir, 1)
	init, err := model.Load(replyHeadSample)
	if err != nil {
		t.Fatal(err)
	}
	gen0 := filepath.Join(dir, "accepted", "0000.ckpt")
	raw, err := os.ReadFile(gen0)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := model.Load(gen0)
	if err != nil || raw[8] != model.FormatVersion || len(ck.Net.Tensors) != len(init.Net.Tensors) {
		t.Fatalf("generation 0: %v, version %d, %d tensors; want version %d with the sample's %d tensors", err, raw[8], len(ck.Net.Tensors), model.FormatVersion, len(init.Net.Tensors))
	}
	for i := range init.Net.Tensors {
		if !slices.Equal(ck.Net.Tensors[i].Data, init.Net.Tensors[i].Data) {
			t.Errorf("generation 0 tensor %s differs from the sample's", init.Net.Tensors[i].Name)
		}
	}
}
