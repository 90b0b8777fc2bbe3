package infer_test

import (
	"math"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"dama/model"
	"dama/model/export"
	"dama/model/infer"
	"dama/model/kernel"
	"dama/model/modeltest"
)

// ref64 is a second backend for the tests: the float64 reference forward
// pass of package export behind the Backend interface. It counts the
// positions it evaluates.
type ref64 struct {
	net       *export.Net
	positions *atomic.Int64
}

func (b ref64) Name() string { return "test-ref64" }

func (b ref64) NewRunner(maxBatch int) infer.Runner {
	return ref64Runner{b, make([]float32, maxBatch*3)}
}

type ref64Runner struct {
	b   ref64
	wdl []float32
}

func (r ref64Runner) Forward(input []float32, batch int, policy, wdl []float32) {
	r.b.net.Forward(input, batch, policy, r.wdl[:batch*3])
	for i, p := range r.wdl[:batch*3] {
		wdl[i] = float32(math.Log(float64(p))) // logits up to a constant: the same softmax
	}
	r.b.positions.Add(int64(batch))
}

var (
	ref64Positions atomic.Int64
	autoAvailable  atomic.Bool
)

func init() {
	newRef := func(n *model.Network) (infer.Backend, error) {
		f, err := export.Fold(n)
		if err != nil {
			return nil, err
		}
		return ref64{f, &ref64Positions}, nil
	}
	infer.RegisterBackend("test-ref64", infer.BackendFactory{New: newRef})
	infer.RegisterBackend("test-never", infer.BackendFactory{New: newRef, Auto: true, Priority: 100, Available: func() bool { return false }})
	infer.RegisterBackend("test-auto", infer.BackendFactory{New: newRef, Auto: true, Priority: 100, Available: autoAvailable.Load})
}

func TestBackendEvaluatorMatchesFP32(t *testing.T) {
	cfg, _ := model.Preset("tiny")
	rng := rand.New(rand.NewSource(5))
	net := model.NewNetwork(cfg, rng)
	fp, err := infer.OpenEvaluator(net, infer.EvaluatorOptions{Backend: "fp32", MaxBatch: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer fp.Close()
	ref, err := infer.OpenEvaluator(net, infer.EvaluatorOptions{Backend: "test-ref64", MaxBatch: 8, CacheSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if fp.Backend() != "fp32" || ref.Backend() != "test-ref64" {
		t.Fatalf("backends %q and %q, want fp32 and test-ref64", fp.Backend(), ref.Backend())
	}
	qs := modeltest.RandomPositions(rng, 40)
	before := ref64Positions.Load()
	for pass := 0; pass < 2; pass++ {
		for i, q := range qs {
			a, b := modeltest.EvaluateBoth(t, fp, ref, q)
			for k := range a.WDL {
				if math.Abs(float64(a.WDL[k]-b.WDL[k])) > 1e-5 {
					t.Fatalf("position %d: WDL %v (fp32) and %v (test backend)", i, a.WDL, b.WDL)
				}
			}
			for k := range a.Priors {
				if math.Abs(float64(a.Priors[k]-b.Priors[k])) > 1e-5 {
					t.Fatalf("position %d: priors %v (fp32) and %v (test backend)", i, a.Priors, b.Priors)
				}
			}
		}
	}
	// The cache wraps the backend: the second pass never reached it.
	if got := ref64Positions.Load() - before; got > int64(len(qs)) {
		t.Errorf("test backend evaluated %d positions for %d distinct ones asked twice: the cache does not wrap it", got, len(qs))
	}
	if s := ref.Stats(); s.CacheHits < int64(len(qs)) {
		t.Errorf("%d cache hits, want at least %d", s.CacheHits, len(qs))
	}
}

func TestResolveBackend(t *testing.T) {
	// Without test-auto, auto is int8 on amd64 with an int8 kernel, else
	// fp32.
	want := "fp32"
	if runtime.GOARCH == "amd64" && kernel.I8Native() {
		want = "int8"
	}
	for _, name := range []string{"", "auto"} {
		if got, err := infer.ResolveBackend(name); err != nil || got != want {
			t.Errorf("ResolveBackend(%q) = %q, %v; want %s (test-auto is off)", name, got, err, want)
		}
	}
	autoAvailable.Store(true)
	got, err := infer.ResolveBackend("auto")
	autoAvailable.Store(false)
	if err != nil || got != "test-auto" {
		t.Errorf("ResolveBackend(auto) = %q, %v with test-auto available; want test-auto", got, err)
	}
	if _, err := infer.ResolveBackend("test-never"); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("ResolveBackend(test-never) error %v, want one saying the CPU does not support it", err)
	}
	_, err = infer.ResolveBackend("fp16")
	if err == nil || !strings.Contains(err.Error(), "fp32") || !strings.Contains(err.Error(), `"fp16"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("ResolveBackend(fp16) error %v, want one line naming it and the valid names", err)
	}
	cfg, _ := model.Preset("tiny")
	if _, err := infer.OpenEvaluator(model.NewNetwork(cfg, rand.New(rand.NewSource(1))), infer.EvaluatorOptions{Backend: "fp16"}); err == nil {
		t.Error("OpenEvaluator accepted an unknown backend")
	}
	names := strings.Join(infer.BackendNames(), " ")
	if !strings.HasPrefix(names, "auto ") || !strings.Contains(names, " fp32") || !strings.Contains(names, "test-ref64") {
		t.Errorf("BackendNames() = %s", names)
	}
}

func TestAvailableBackends(t *testing.T) {
	here := infer.AvailableBackends()
	if !slices.Contains(here, infer.BackendFP32) || slices.Contains(here, infer.BackendAuto) || !slices.IsSorted(here) {
		t.Errorf("available backends %v: want fp32, not auto, sorted", here)
	}
	for _, n := range here {
		if _, err := infer.ResolveBackend(n); err != nil {
			t.Errorf("%s listed as available: %v", n, err)
		}
	}
}
