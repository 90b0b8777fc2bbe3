package model_test

import (
	"testing"

	"dama/model"
)

// TestNewSeededNetworkPinned pins the first weights of a seed's network:
// dama model new --seed and a run's generation 0 must keep drawing the
// same network (math/rand v1's sequence; v2 would draw others).
func TestNewSeededNetworkPinned(t *testing.T) {
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	net := model.NewSeededNetwork(cfg, 1)
	var got []float32
	for _, ts := range net.Tensors {
		if ts.Kind == model.Weight {
			got = ts.Data[:3]
			break
		}
	}
	want := []float32{-0.19386639, -0.019853596, -0.0818664}
	if len(got) != len(want) {
		t.Fatalf("first weights %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("seed 1: first weights %v, want %v", got, want)
		}
	}
}
