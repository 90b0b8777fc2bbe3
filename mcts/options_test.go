package mcts

import (
	"math"
	"strings"
	"testing"
)

// TestOptionsZero checks the meaning of zero fields: none for the amounts
// that may be zero, the default for the constants that must be positive.
func TestOptionsZero(t *testing.T) {
	o := New(&materialEval{}, Options{}).Options()
	if o.FPUReduction != 0 || o.DirichletFraction != 0 || o.MaxPlies != 0 {
		t.Errorf("zero amounts became %+v, want none", o)
	}
	if o.CPuct != DefaultCPuct || o.DirichletAlpha != DefaultDirichletAlpha || o.Parallel != DefaultParallel || o.MaxNodes != DefaultMaxNodes {
		t.Errorf("zero constants became %+v, want the defaults", o)
	}
	set := Options{FPUReduction: StandardFPUReduction, DirichletFraction: 0.4}
	if o := New(&materialEval{}, set).Options(); o.FPUReduction != StandardFPUReduction || o.DirichletFraction != 0.4 {
		t.Errorf("set amounts became %+v", o)
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{FPUReduction: -1}, "FPUReduction"},
		{Options{DirichletFraction: -0.1}, "DirichletFraction"},
		{Options{DirichletFraction: 1.5}, "DirichletFraction"},
		{Options{CPuct: math.NaN()}, "CPuct"},
		{Options{Parallel: -2}, "Parallel"},
		{Options{MaxNodes: -1}, "MaxNodes"},
	} {
		if err := tc.o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.o, err, tc.want)
		}
	}
}
