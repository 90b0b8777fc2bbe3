package model_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"dama/internal/envelope"
	"dama/model"
)

// The committed samples were written by the checkpoint writer before the
// shared file envelope (internal/envelope, issue 11): sample-v1.ckpt (see
// golden_test.go) and sample-v2-aux.ckpt, a network with the opponent-reply
// head (format version 2) holding perturbed batch-norm statistics. The
// version 1 sample must still load, and the current writer must reproduce
// it byte for byte, so that older programs keep reading what this one
// writes.
func TestCheckpointSampleV1(t *testing.T) {
	const path = "testdata/sample-v1.ckpt"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != 3 || ck.Opt.Kind != "adam" || ck.Version != model.FormatVersion || int(raw[8]) != model.FormatVersion {
		t.Errorf("%s: step %d optimizer %q, version %d read as %d; want 3 adam %d", path, ck.Step, ck.Opt.Kind, raw[8], ck.Version, model.FormatVersion)
	}
	again, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, raw) {
		t.Errorf("%s: re-encoding the loaded checkpoint gives %d bytes that differ from the file's %d", path, len(again), len(raw))
	}
}

// The reply head was removed (docs/experiments.md#the-opponent-reply-head):
// the version 2 sample loads without it, for play, analysis, export and
// training alike (inference never computed it): its config and digest are
// those of the same network without the head, its other tensors keep the
// file's values, its metadata is kept, and it is written again as a
// version 1 file that loads back to the same network. A version 2 file
// whose flags word is not the reply head's is refused.
func TestCheckpointSampleV2DropsReplyHead(t *testing.T) {
	const path = "testdata/sample-v2-aux.ckpt"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if int(raw[8]) != model.FormatVersionFlags || ck.Version != model.FormatVersionFlags || ck.Step != 5 || ck.Opt.Kind != "" {
		t.Errorf("version %d read as %d, step %d, optimizer %q; want version %d, step 5, none", raw[8], ck.Version, ck.Step, ck.Opt.Kind, model.FormatVersionFlags)
	}
	if want := time.Unix(1764500000, 123); ck.Meta.Parent != "candidates/0001.ckpt" || !ck.Meta.Created.Equal(want) {
		t.Errorf("meta %+v, want parent candidates/0001.ckpt created %v", ck.Meta, want)
	}
	if err := ck.Net.Check(); err != nil || ck.Meta.ConfigDigest != ck.Net.Config.Digest() || strings.Contains(ck.Net.Config.String(), "reply") {
		t.Errorf("config %s, digest %s (the network's %s): %v", ck.Net.Config, ck.Meta.ConfigDigest, ck.Net.Config.Digest(), err)
	}
	if len(ck.Net.Tensors) != len(model.Layout(ck.Net.Config)) {
		t.Errorf("%d tensors, the layout has %d", len(ck.Net.Tensors), len(model.Layout(ck.Net.Config)))
	}
	for _, tt := range ck.Net.Tensors {
		if strings.HasPrefix(tt.Name, "reply/") {
			t.Errorf("tensor %s of the reply head kept", tt.Name)
		}
		b := make([]byte, 4*len(tt.Data))
		for i, x := range tt.Data {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		if !bytes.Contains(raw, b) {
			t.Errorf("tensor %s: its values are not the file's", tt.Name)
		}
	}
	again, err := ck.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := model.Unmarshal(again)
	if err != nil || again[8] != model.FormatVersion || back.Net.Config != ck.Net.Config || len(back.Net.Tensors) != len(ck.Net.Tensors) {
		t.Fatalf("written again: version %d, %v", again[8], err)
	}
	for i := range back.Net.Tensors {
		if !slices.Equal(back.Net.Tensors[i].Data, ck.Net.Tensors[i].Data) {
			t.Errorf("written again: tensor %s differs", back.Net.Tensors[i].Name)
		}
	}
	// The flags word follows the config's name and five sizes.
	payload := raw[envelope.HeaderLen : len(raw)-envelope.TrailerLen]
	off := 4 + int(binary.LittleEndian.Uint32(payload)) + 5*4
	if _, err := model.DecodePayload(payload, model.FormatVersionFlags); err != nil {
		t.Fatalf("the sample's payload: %v", err)
	}
	for _, flags := range []uint32{0, 2, 3} {
		p := slices.Clone(payload)
		binary.LittleEndian.PutUint32(p[off:], flags)
		if _, err := model.DecodePayload(p, model.FormatVersionFlags); err == nil || !strings.Contains(err.Error(), "config flags") {
			t.Errorf("flags %#x: %v, want a refusal naming the config flags", flags, err)
		}
	}
}
