package model_test

import (
	"strings"
	"testing"

	"dama/model"
	"dama/model/modeltest"
)

func TestPresets(t *testing.T) {
	for _, name := range model.PresetNames() {
		c, err := model.Preset(name)
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
	_, err := model.Preset("huge")
	if err == nil || !strings.Contains(err.Error(), `"huge"`) || !strings.Contains(err.Error(), "small, tiny, workstation") {
		t.Errorf("unknown preset: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	base, _ := model.Preset("tiny")
	for _, tc := range []struct {
		edit  func(*model.Config)
		field string
	}{
		{func(c *model.Config) { c.Blocks = -1 }, "Blocks = -1 out of range [0, 40]"},
		{func(c *model.Config) { c.Blocks = 41 }, "Blocks"},
		{func(c *model.Config) { c.Filters = 0 }, "Filters = 0 out of range [1, 512]"},
		{func(c *model.Config) { c.PolicyFilters = 0 }, "PolicyFilters"},
		{func(c *model.Config) { c.ValueFilters = 200 }, "ValueFilters"},
		{func(c *model.Config) { c.ValueHidden = 0 }, "ValueHidden"},
		{func(c *model.Config) { c.Name = strings.Repeat("x", 65) }, "Name"},
	} {
		c := base
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want one containing %q", c, err, tc.field)
		}
	}
}

func TestNewNetworkReproducible(t *testing.T) {
	a, b, c := modeltest.TinyNet(t, 1), modeltest.TinyNet(t, 1), modeltest.TinyNet(t, 2)
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
	want := 9*model.NumPlanes*F + 2*F +
		cfg.Blocks*2*(9*F*F+2*F) +
		F*cfg.PolicyFilters + 2*cfg.PolicyFilters + 32*cfg.PolicyFilters*model.PolicySize + model.PolicySize +
		F*cfg.ValueFilters + 2*cfg.ValueFilters + 32*cfg.ValueFilters*cfg.ValueHidden + cfg.ValueHidden + cfg.ValueHidden*3 + 3
	if got := a.NumParams(); got != want {
		t.Errorf("NumParams = %d, want %d", got, want)
	}
}

func TestNetworkCheck(t *testing.T) {
	n := modeltest.TinyNet(t, 5)
	n.Tensor("input/bn/var").Data[0] = -1
	if err := n.Check(); err == nil || !strings.Contains(err.Error(), "input/bn/var") {
		t.Errorf("negative variance: %v", err)
	}
	n = modeltest.TinyNet(t, 5)
	n.Tensors = n.Tensors[:len(n.Tensors)-1]
	if err := n.Check(); err == nil {
		t.Errorf("missing tensor accepted")
	}
	n = modeltest.TinyNet(t, 5)
	n.Tensors[0].Name = "foo"
	if err := n.Check(); err == nil || !strings.Contains(err.Error(), `"foo"`) {
		t.Errorf("renamed tensor: %v", err)
	}
}
