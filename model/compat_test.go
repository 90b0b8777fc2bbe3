package model_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"dama/model"
)

// The committed samples were written by the checkpoint writer before the
// shared file envelope (internal/envelope, issue 11): sample-v1.ckpt (see
// golden_test.go) and sample-v2-aux.ckpt, a network with the reply head
// (format version 2) holding perturbed batch-norm statistics. Both must
// still load, and the current writer must reproduce them byte for byte,
// so that older programs keep reading what this one writes.
func TestCheckpointSamplesLoad(t *testing.T) {
	for _, tc := range []struct {
		path    string
		version int
		aux     bool
		step    int64
		opt     string
	}{
		{"testdata/sample-v1.ckpt", model.FormatVersion, false, 3, "adam"},
		{"testdata/sample-v2-aux.ckpt", model.FormatVersionFlags, true, 5, ""},
	} {
		raw, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		ck, err := model.Load(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if ck.Net.Config.AuxReply != tc.aux || ck.Step != tc.step || ck.Opt.Kind != tc.opt {
			t.Errorf("%s: aux %v step %d optimizer %q, want %v %d %q", tc.path, ck.Net.Config.AuxReply, ck.Step, ck.Opt.Kind, tc.aux, tc.step, tc.opt)
		}
		if v := int(raw[8]); v != tc.version || ck.Version != tc.version {
			t.Errorf("%s: sample is version %d, read as %d, the test expects %d", tc.path, v, ck.Version, tc.version)
		}
		again, err := ck.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, raw) {
			t.Errorf("%s: re-encoding the loaded checkpoint gives %d bytes that differ from the file's %d", tc.path, len(again), len(raw))
		}
	}
	ck, err := model.Load("testdata/sample-v2-aux.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Unix(1764500000, 123); ck.Meta.Parent != "candidates/0001.ckpt" || !ck.Meta.Created.Equal(want) {
		t.Errorf("meta %+v, want parent candidates/0001.ckpt created %v", ck.Meta, want)
	}
}
