package infer

import (
	"runtime"
	"strings"
	"testing"

	"dama/model/kernel"
	"dama/model/modeltest"
)

// The int8 backend against fp32 on random positions of randomly
// initialised networks, calibrated on their own games: the worst
// differences measured are 0.015 (priors), 0.021 (WDL) and a mean |dE| of
// 0.0044 (workstation); the tolerances leave room for other seeds. (The
// trained shipped model on its own games: checkpoints/int8_test.go and the
// accuracy table in docs/performance.md.)
const (
	int8PriorTol = 0.05 // largest |prior difference| of a legal move
	int8WDLTol   = 0.05 // largest |W, D or L difference|
	int8MeanTol  = 0.01 // mean |expected score difference|
)

func TestInt8MatchesFP32(t *testing.T) {
	for _, name := range []string{"tiny", "small", "workstation"} {
		t.Run(name, func(t *testing.T) {
			// The portable kernel is slow, and so is arm64 under qemu-user
			// (CI), where tiny and small already drive the SDOT kernel.
			if name == "workstation" && testing.Short() && (!kernel.I8Native() || runtime.GOARCH != "amd64") {
				t.Skip("the portable or emulated int8 kernel is slow: workstation only without -short")
			}
			d := diffFromFP32(t, name, newInt8Backend)
			t.Logf("%s: %v", name, d)
			if d.worstP > int8PriorTol || d.worstV > int8WDLTol || d.meanE > int8MeanTol {
				t.Errorf("int8 differs from fp32 by %.4f (priors), %.4f (WDL), %.5f (mean dE); tolerances %.2f, %.2f, %.2f", d.worstP, d.worstV, d.meanE, int8PriorTol, int8WDLTol, int8MeanTol)
			}
			if d.worstP == 0 && d.worstV == 0 {
				t.Error("int8 gives exactly the fp32 outputs: it is not running in int8")
			}
		})
	}
}

// Calibration is deterministic and sets the step of every int8 layer; the
// input convolution stays float32.
func TestInt8Calibration(t *testing.T) {
	net := modeltest.TinyNet(t, 5)
	var built [2]*int8Backend // twice, from the same network
	for k := range built {
		b, err := newInt8Backend(net)
		if err != nil {
			t.Fatal(err)
		}
		built[k] = b.(*int8Backend)
	}
	ia, ib := built[0], built[1]
	for i, l := range ia.inf.layers {
		if ia.ranges[i] != ib.ranges[i] {
			t.Errorf("layer %s: calibrated %v then %v", l.Name, ia.ranges[i], ib.ranges[i])
		}
		want := l.In >= 0
		if (ia.packed[i] != nil) != want {
			t.Errorf("layer %s (%s) runs in int8: %v, want %v", l.Name, l.Kind, ia.packed[i] != nil, want)
		}
		if want && (!(ia.ranges[i] > 0) || ia.packed[i].InScale() != ia.ranges[i]/255) {
			t.Errorf("layer %s: calibrated range %v, input step %v", l.Name, ia.ranges[i], ia.packed[i].InScale())
		}
	}
}

// Where the CPU lacks AVX2 and FEAT_DotProd (forced here), "int8" is refused with a
// clear error, and "auto" does not pick it; where it has it, "auto" picks
// it on amd64 unless bf16 is native, and "int8" can be forced and an
// evaluator runs it.
func TestInt8Selection(t *testing.T) {
	saved := int8Available
	defer func() { int8Available = saved }()
	int8Available = func() bool { return false }
	if _, err := ResolveBackend("int8"); err == nil || !strings.Contains(err.Error(), "AVX2") {
		t.Errorf("int8 on a CPU without AVX2: error %v, want one naming AVX2", err)
	}
	if got, _ := ResolveBackend("auto"); got == "int8" {
		t.Error("auto chose int8 where the CPU has no int8 kernel")
	}
	int8Available = func() bool { return true }
	want := runtime.GOARCH == "amd64"
	if got, _ := ResolveBackend("auto"); (got == "int8") != want {
		t.Errorf("auto chose %s with int8 available; want int8: %v (amd64)", got, want)
	}
	savedBF16 := bf16Available
	bf16Available = func() bool { return false }
	if got, _ := ResolveBackend("auto"); (got == "int8") != (runtime.GOARCH == "amd64") {
		t.Errorf("auto without bf16 chose %s with int8 available on %s", got, runtime.GOARCH)
	}
	bf16Available = savedBF16
	int8Available = saved
	if !kernel.I8Native() {
		t.Skip("this CPU has neither AVX2 nor FEAT_DotProd: the forced int8 evaluator is not available")
	}
	checkForcedEvaluator(t, "int8", int8WDLTol)
}
