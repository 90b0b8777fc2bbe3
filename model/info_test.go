package model

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestNewCheckpointInfo: a fresh checkpoint's weights come from its seed
// alone; its header reads a field a line, "-" and "none" for what it has
// not, and says when a checkpoint lost its reply head on reading.
func TestNewCheckpointInfo(t *testing.T) {
	cfg, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	a, b := NewCheckpoint(cfg, 7, "n"), NewCheckpoint(cfg, 7, "n")
	if a.Meta.Note != "n" || a.Meta.Created.IsZero() || time.Since(a.Meta.Created) > time.Minute || a.Net.Tensors[0].Data[0] != b.Net.Tensors[0].Data[0] {
		t.Errorf("fresh checkpoint %+v: want the note, created now, the seed's weights", a.Meta)
	}
	a.Version, a.Step = FormatVersion, 12
	var buf bytes.Buffer
	a.WriteInfo(&buf)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 8 || lines[4] != "step        12" || lines[5] != "parent      -" || lines[7] != "optimizer   none" || !strings.HasPrefix(lines[6], "created     "+a.Meta.Created.Format("2006")) {
		t.Errorf("info:\n%s", buf.String())
	}
	a.Version, a.Opt.Kind, a.Opt.Steps = FormatVersionFlags, "adam", 3
	buf.Reset()
	a.WriteInfo(&buf)
	if s := buf.String(); !strings.Contains(s, "reply head") || !strings.Contains(s, "optimizer   adam (3 steps)") {
		t.Errorf("info of a version %d checkpoint with Adam's state:\n%s", FormatVersionFlags, s)
	}
}

// NewFromPreset draws the preset's network from the seed, with the note
// given or one naming the preset and seed; an unknown preset is refused.
func TestNewFromPreset(t *testing.T) {
	cfg, err := Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ck, err := NewFromPreset("tiny", 7, "")
	if err != nil || ck.Net.Config != cfg || ck.Meta.Note != "fresh tiny network, seed 7" || ck.Net.Tensors[0].Data[0] != NewCheckpoint(cfg, 7, "").Net.Tensors[0].Data[0] {
		t.Errorf("got %v, note %q, %v", ck.Net.Config, ck.Meta.Note, err)
	}
	if ck, err := NewFromPreset("tiny", 7, "mine"); err != nil || ck.Meta.Note != "mine" {
		t.Errorf("a note given: %v", err)
	}
	if _, err := NewFromPreset("huge", 1, ""); err == nil || !strings.Contains(err.Error(), `unknown preset "huge"`) {
		t.Errorf("an unknown preset: got %v", err)
	}
}
