package model

import (
	"math/rand"
	"strings"
	"testing"
)

func TestSpecPresets(t *testing.T) {
	for _, name := range PresetNames() {
		c, _ := Preset(name)
		layers := Spec(c)
		if err := CheckSpec(layers); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if want := 1 + 2*c.Blocks + 5; len(layers) != want {
			t.Errorf("%s: %d layers, want %d", name, len(layers), want)
		}
		// The flops of the architecture as the package documentation counts them.
		F, px := float64(c.Filters), float64(Squares)
		f := px*9*NumPlanes*F + float64(2*c.Blocks)*px*9*F*F + px*F*float64(c.PolicyFilters) +
			px*float64(c.PolicyFilters)*PolicySize + px*F*float64(c.ValueFilters) +
			px*float64(c.ValueFilters)*float64(c.ValueHidden) + float64(c.ValueHidden)*ValueSize
		if got := Flops(c); got != 2*f {
			t.Errorf("%s: Flops %v, want %v", name, got, 2*f)
		}
	}
}

func TestCheckSpecRejects(t *testing.T) {
	c, _ := Preset("tiny")
	tests := []struct {
		name   string
		change func(l []Layer) []Layer
		want   string
	}{
		{"later input", func(l []Layer) []Layer { l[1].In = 3; return l }, "reads layer 3"},
		{"channels", func(l []Layer) []Layer { l[1].Cin = 7; return l }, "takes 7 channels"},
		{"kernel", func(l []Layer) []Layer { l[1].K = 5; return l }, "kernel 5x5"},
		{"residual width", func(l []Layer) []Layer { l[len(l)-5].Residual = 0; return l }, "residual"},
		{"dense width", func(l []Layer) []Layer { l[len(l)-1].Cin = 5; return l }, "takes 5 inputs"},
		{"two policies", func(l []Layer) []Layer { l[len(l)-1].Output = PolicyOutput; return l }, "output"},
		{"relu on logits", func(l []Layer) []Layer { l[len(l)-1].ReLU = true; return l }, "without ReLU"},
		{"no value", func(l []Layer) []Layer { return l[:len(l)-1] }, "0 value outputs"},
	}
	for _, tc := range tests {
		err := CheckSpec(tc.change(Spec(c)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestPlanBuffers checks the inference plan reuses activation buffers: a
// tower of any depth needs three, plus the heads' hidden layer.
func TestPlanBuffers(t *testing.T) {
	for _, blocks := range []int{0, 1, 6} {
		c, _ := Preset("small")
		c.Blocks = blocks
		net := NewNetwork(c, rand.New(rand.NewSource(1)))
		inf, err := newInference(net)
		if err != nil {
			t.Fatal(err)
		}
		if len(inf.bufs) > 4 {
			t.Errorf("%d blocks: %d activation buffers, want at most 4", blocks, len(inf.bufs))
		}
	}
}
