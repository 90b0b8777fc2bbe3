package model_test

import (
	"strings"
	"testing"

	"dama/model"
)

func TestSpecPresets(t *testing.T) {
	for _, name := range model.PresetNames() {
		c, _ := model.Preset(name)
		layers := model.Spec(c)
		if err := model.CheckSpec(layers); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if want := 1 + 2*c.Blocks + 5; len(layers) != want {
			t.Errorf("%s: %d layers, want %d", name, len(layers), want)
		}
		// The flops of the architecture as the package documentation counts them.
		F, px := float64(c.Filters), float64(model.Squares)
		f := px*9*model.NumPlanes*F + float64(2*c.Blocks)*px*9*F*F + px*F*float64(c.PolicyFilters) +
			px*float64(c.PolicyFilters)*model.PolicySize + px*F*float64(c.ValueFilters) +
			px*float64(c.ValueFilters)*float64(c.ValueHidden) + float64(c.ValueHidden)*model.ValueSize
		if got := model.Flops(c); got != 2*f {
			t.Errorf("%s: Flops %v, want %v", name, got, 2*f)
		}
	}
}

func TestCheckSpecRejects(t *testing.T) {
	c, _ := model.Preset("tiny")
	tests := []struct {
		name   string
		change func(l []model.Layer) []model.Layer
		want   string
	}{
		{"later input", func(l []model.Layer) []model.Layer { l[1].In = 3; return l }, "reads layer 3"},
		{"channels", func(l []model.Layer) []model.Layer { l[1].Cin = 7; return l }, "takes 7 channels"},
		{"kernel", func(l []model.Layer) []model.Layer { l[1].K = 5; return l }, "kernel 5x5"},
		{"residual width", func(l []model.Layer) []model.Layer { l[len(l)-5].Residual = 0; return l }, "residual"},
		{"dense width", func(l []model.Layer) []model.Layer { l[len(l)-1].Cin = 5; return l }, "takes 5 inputs"},
		{"two policies", func(l []model.Layer) []model.Layer { l[len(l)-1].Output = model.PolicyOutput; return l }, "output"},
		{"relu on logits", func(l []model.Layer) []model.Layer { l[len(l)-1].ReLU = true; return l }, "without ReLU"},
		{"no value", func(l []model.Layer) []model.Layer { return l[:len(l)-1] }, "0 value outputs"},
	}
	for _, tc := range tests {
		err := model.CheckSpec(tc.change(model.Spec(c)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}
