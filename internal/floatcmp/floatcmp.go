// Package floatcmp measures how far float32 results are from a reference,
// the one measure the tests of the kernels and of the training ops compare
// a computation with its reference by.
package floatcmp

import "math"

// RelErr returns max |got-want| / max |want| over the elements of want
// (got is at least as long): the largest error relative to the largest
// value, so small values do not blow it up.
func RelErr(got, want []float32) float64 {
	var d, m float64
	for i := range want {
		d = math.Max(d, math.Abs(float64(got[i]-want[i])))
		m = math.Max(m, math.Abs(float64(want[i])))
	}
	return d / math.Max(m, 1e-30)
}
