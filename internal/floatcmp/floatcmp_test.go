package floatcmp

import "testing"

func TestRelErr(t *testing.T) {
	for _, tc := range []struct {
		got, want []float32
		rel       float64
	}{
		{[]float32{1, 2}, []float32{1, 2}, 0},
		{[]float32{1, 2.5}, []float32{1, 2}, 0.25},
		{[]float32{0.5, -4}, []float32{0, -4}, 0.125},
		{[]float32{0}, []float32{0}, 0},
		{[]float32{1, 2, 99}, []float32{1, 2}, 0}, // got may be longer
	} {
		if got := RelErr(tc.got, tc.want); got != tc.rel {
			t.Errorf("RelErr(%v, %v) = %v, want %v", tc.got, tc.want, got, tc.rel)
		}
	}
}
