package infer

import (
	"runtime"
	"testing"

	"dama/model/kernel"
)

// The bf16 backend against fp32 on random positions of randomly
// initialised networks (bfloat16 keeps 8 bits of mantissa): the worst
// differences measured are below 0.006 (workstation WDL); the tolerances leave room for
// other seeds.
const (
	bf16PriorTol = 0.01 // largest |prior difference| of a legal move
	bf16WDLTol   = 0.01 // largest |W, D or L difference|
)

func TestBF16MatchesFP32(t *testing.T) {
	for _, name := range []string{"tiny", "small", "workstation"} {
		t.Run(name, func(t *testing.T) {
			if name == "workstation" && testing.Short() && !kernel.BF16Native() {
				t.Skip("the portable bf16 kernel is slow: workstation only without -short")
			}
			d := diffFromFP32(t, name, newBF16Backend)
			t.Logf("%s: %v", name, d)
			if d.worstP > bf16PriorTol || d.worstV > bf16WDLTol {
				t.Errorf("bf16 differs from fp32 by %.4f (priors) and %.4f (WDL), tolerances %.2f and %.2f", d.worstP, d.worstV, bf16PriorTol, bf16WDLTol)
			}
			if d.worstP == 0 && d.worstV == 0 {
				t.Error("bf16 gives exactly the fp32 outputs: it is not running in bfloat16")
			}
		})
	}
}

// Where the CPU lacks AVX512_BF16 (forced here), "bf16" is refused with a
// clear error and "auto" falls back to int8 or fp32; where it has it, "bf16" can be
// forced and an evaluator runs it.
func TestBF16Selection(t *testing.T) {
	saved := bf16Available
	defer func() { bf16Available = saved }()
	bf16Available = func() bool { return false }
	if _, err := ResolveBackend("bf16"); err == nil {
		t.Error("bf16 accepted on a CPU without AVX512_BF16")
	}
	if got, err := ResolveBackend("auto"); err != nil || got != noBF16Auto() {
		t.Errorf("auto without AVX512_BF16 = %q, %v; want %s", got, err, noBF16Auto())
	}
	bf16Available = saved
	if got, err := ResolveBackend("auto"); err != nil || got == "bf16" {
		t.Errorf("auto = %q, %v; auto never chooses bf16 (int8 ran faster wherever bf16 is native)", got, err)
	}
	if !kernel.BF16Native() {
		t.Skip("this CPU has no AVX512_BF16: the forced bf16 evaluator is not available")
	}
	checkForcedEvaluator(t, "bf16", bf16WDLTol)
}

// noBF16Auto is what "auto" picks where bf16 is not available: int8 on
// amd64 where the CPU has an int8 kernel, else fp32.
func noBF16Auto() string {
	if runtime.GOARCH == "amd64" && int8Available() {
		return int8Name
	}
	return fp32Name
}
