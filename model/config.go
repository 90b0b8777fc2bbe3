package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Config sets the size of a network. The input and output shapes are fixed
// by the encoding (NumPlanes input planes on an 8x4 board, PolicySize policy
// logits, 3 value logits).
type Config struct {
	Name          string // preset name, or "custom"; informative only
	Blocks        int    // residual blocks of two 3x3 convolutions
	Filters       int    // channels of the tower
	PolicyFilters int    // channels of the policy head's 1x1 convolution
	ValueFilters  int    // channels of the value head's 1x1 convolution
	ValueHidden   int    // width of the value head's hidden dense layer
}

// Allowed ranges of the Config fields.
const (
	MaxBlocks        = 40
	MaxFilters       = 512
	MaxHeadFilters   = 128
	MaxValueHidden   = 1024
	maxConfigNameLen = 64
)

var presets = map[string]Config{
	// tiny: unit tests and smoke runs.
	"tiny": {Name: "tiny", Blocks: 2, Filters: 16, PolicyFilters: 4, ValueFilters: 2, ValueHidden: 32},
	// small: the quick training preset.
	"small": {Name: "small", Blocks: 4, Filters: 32, PolicyFilters: 8, ValueFilters: 4, ValueHidden: 64},
	// workstation: 6x64. Measured (see the package documentation) at about
	// 7.5k positions/s per core at batch 8-32, against 5.4k for 8x64: a
	// third more tower for 28% less search speed, and Gorgonia training on
	// CPU is slower still, so 6x64 is the better trade for CPU self-play.
	"workstation": {Name: "workstation", Blocks: 6, Filters: 64, PolicyFilters: 16, ValueFilters: 8, ValueHidden: 128},
}

// PresetNames returns the names of the presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Preset returns the named preset: "tiny", "small" or "workstation".
func Preset(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("model: unknown preset %q (valid: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return c, nil
}

// Validate reports the first field out of its allowed range.
func (c Config) Validate() error {
	check := func(field string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("model: config field %s = %d out of range [%d, %d]", field, v, lo, hi)
		}
		return nil
	}
	if err := check("Blocks", c.Blocks, 0, MaxBlocks); err != nil {
		return err
	}
	if err := check("Filters", c.Filters, 1, MaxFilters); err != nil {
		return err
	}
	if err := check("PolicyFilters", c.PolicyFilters, 1, MaxHeadFilters); err != nil {
		return err
	}
	if err := check("ValueFilters", c.ValueFilters, 1, MaxHeadFilters); err != nil {
		return err
	}
	if err := check("ValueHidden", c.ValueHidden, 1, MaxValueHidden); err != nil {
		return err
	}
	if len(c.Name) > maxConfigNameLen {
		return fmt.Errorf("model: config field Name is %d bytes long, at most %d allowed", len(c.Name), maxConfigNameLen)
	}
	return nil
}

// String describes the shape, e.g. "tiny (2 blocks x 16 filters, policy 4, value 2/32)".
func (c Config) String() string {
	name := c.Name
	if name == "" {
		name = "custom"
	}
	return fmt.Sprintf("%s (%d blocks x %d filters, policy %d, value %d/%d)",
		name, c.Blocks, c.Filters, c.PolicyFilters, c.ValueFilters, c.ValueHidden)
}

// Digest returns a short hex digest of the shape-defining fields and the
// input/output format (the name is not part of it): two networks with the
// same digest have the same tensors.
func (c Config) Digest() string { return c.digest("") }

// digest is Digest with suffix appended to the hashed text: " aux-reply"
// gives the digest a network with the removed reply head had (checkpoint
// format version 2).
func (c Config) digest(suffix string) string {
	s := fmt.Sprintf("dama-net v%d planes=%d policy=%d blocks=%d filters=%d pf=%d vf=%d vh=%d%s",
		FormatVersion, NumPlanes, PolicySize, c.Blocks, c.Filters, c.PolicyFilters, c.ValueFilters, c.ValueHidden, suffix)
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
