package model

import (
	"fmt"
	"io"
	"time"
)

// NewCheckpoint returns a checkpoint of a fresh network of cfg, its
// weights drawn from seed alone (NewSeededNetwork), created now, with
// note.
func NewCheckpoint(cfg Config, seed int64, note string) *Checkpoint {
	return &Checkpoint{Net: NewSeededNetwork(cfg, seed), Meta: Meta{Created: time.Now().UTC(), Note: note}}
}

// NewFromPreset returns a checkpoint of a fresh network of the preset
// named (Preset, NewCheckpoint), its weights drawn from the preset and
// seed alone, with note ("": "fresh PRESET network, seed SEED").
func NewFromPreset(preset string, seed int64, note string) (*Checkpoint, error) {
	cfg, err := Preset(preset)
	if err != nil {
		return nil, err
	}
	if note == "" {
		note = fmt.Sprintf("fresh %s network, seed %d", preset, seed)
	}
	return NewCheckpoint(cfg, seed, note), nil
}

// WriteInfo writes the checkpoint's header as people read it, a field a
// line: format, network, digest, parameters, step, parent, creation time
// and optimizer state ("-" or "none" where there is none).
func (c *Checkpoint) WriteInfo(w io.Writer) {
	if c.Version == FormatVersionFlags {
		fmt.Fprintf(w, "format      version %d (its opponent-reply head, removed since, is dropped on reading)\n", c.Version)
	} else {
		fmt.Fprintf(w, "format      version %d\n", c.Version)
	}
	fmt.Fprintf(w, "config      %s\n", c.Net.Config)
	fmt.Fprintf(w, "digest      %s\n", c.Meta.ConfigDigest)
	fmt.Fprintf(w, "parameters  %d\n", c.Net.NumParams())
	fmt.Fprintf(w, "step        %d\n", c.Step)
	parent := c.Meta.Parent
	if parent == "" {
		parent = "-"
	}
	fmt.Fprintf(w, "parent      %s\n", parent)
	created := "-"
	if !c.Meta.Created.IsZero() {
		created = c.Meta.Created.Format(time.RFC3339)
	}
	fmt.Fprintf(w, "created     %s\n", created)
	opt := "none"
	if c.Opt.Kind != "" {
		opt = fmt.Sprintf("%s (%d steps)", c.Opt.Kind, c.Opt.Steps)
	}
	fmt.Fprintf(w, "optimizer   %s\n", opt)
}
