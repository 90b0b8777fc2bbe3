package model

import (
	"math/rand"
	"strings"
	"testing"
)

func TestPresets(t *testing.T) {
	for _, name := range PresetNames() {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		if c.Name != name {
			t.Errorf("preset %s is named %q", name, c.Name)
		}
	}
	_, err := Preset("huge")
	if err == nil || !strings.Contains(err.Error(), `"huge"`) || !strings.Contains(err.Error(), "small, tiny, workstation") {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	base, _ := Preset("tiny")
	for _, tc := range []struct {
		edit  func(*Config)
		field string
	}{
		{func(c *Config) { c.Blocks = -1 }, "Blocks = -1 out of range [0, 40]"},
		{func(c *Config) { c.Blocks = 41 }, "Blocks"},
		{func(c *Config) { c.Filters = 0 }, "Filters = 0 out of range [1, 512]"},
		{func(c *Config) { c.PolicyFilters = 0 }, "PolicyFilters"},
		{func(c *Config) { c.ValueFilters = 200 }, "ValueFilters"},
		{func(c *Config) { c.ValueHidden = 0 }, "ValueHidden"},
		{func(c *Config) { c.Name = strings.Repeat("x", 65) }, "Name"},
	} {
		c := base
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want one containing %q", c, err, tc.field)
		}
	}
}

func TestNewNetworkReproducible(t *testing.T) {
	a, b, c := tinyNet(t, 1), tinyNet(t, 1), tinyNet(t, 2)
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	equal, differ := true, false
	for i := range a.Tensors {
		for j := range a.Tensors[i].Data {
			equal = equal && a.Tensors[i].Data[j] == b.Tensors[i].Data[j]
			differ = differ || a.Tensors[i].Data[j] != c.Tensors[i].Data[j]
		}
	}
	if !equal || !differ {
		t.Errorf("same seed equal: %v, different seed differs: %v", equal, differ)
	}
	// Parameter count of tiny: input conv, 2 blocks, two heads.
	cfg := a.Config
	F := cfg.Filters
	want := 9*NumPlanes*F + 2*F +
		cfg.Blocks*2*(9*F*F+2*F) +
		F*cfg.PolicyFilters + 2*cfg.PolicyFilters + 32*cfg.PolicyFilters*PolicySize + PolicySize +
		F*cfg.ValueFilters + 2*cfg.ValueFilters + 32*cfg.ValueFilters*cfg.ValueHidden + cfg.ValueHidden + cfg.ValueHidden*3 + 3
	if got := a.NumParams(); got != want {
		t.Errorf("NumParams = %d, want %d", got, want)
	}
	// The initial policy is near uniform and the value near 1/3 each.
	rng := rand.New(rand.NewSource(3))
	q := randomPositions(rng, 1)[0]
	e := reference(t, a, queryOf(q))
	for _, p := range e.WDL {
		if p < 0.2 || p > 0.5 {
			t.Errorf("initial WDL %v far from uniform", e.WDL)
		}
	}
	for _, p := range e.Priors {
		if u := 1 / float32(len(e.Priors)); p < u/2 || p > 2*u {
			t.Errorf("initial priors %v far from uniform", e.Priors)
			break
		}
	}
}

func TestNetworkCheck(t *testing.T) {
	n := tinyNet(t, 5)
	n.Tensor("input/bn/var").Data[0] = -1
	if err := n.Check(); err == nil || !strings.Contains(err.Error(), "input/bn/var") {
		t.Errorf("negative variance: %v", err)
	}
	n = tinyNet(t, 5)
	n.Tensors = n.Tensors[:len(n.Tensors)-1]
	if err := n.Check(); err == nil {
		t.Errorf("missing tensor accepted")
	}
	n = tinyNet(t, 5)
	n.Tensors[0].Name = "foo"
	if err := n.Check(); err == nil || !strings.Contains(err.Error(), `"foo"`) {
		t.Errorf("renamed tensor: %v", err)
	}
}
