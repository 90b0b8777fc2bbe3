package infer

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"dama/model"
	"dama/model/kernel"
)

// Backend is a forward pass of the network over batches of encoded
// positions, the seam under the Evaluator: the batcher and the cache wrap
// any backend, so a reduced-precision backend or another library plugs in
// next to the fp32 one by registering a constructor (RegisterBackend).
// A Backend is read-only once built and shared by all batchers.
type Backend interface {
	// Name is the name the backend is registered under.
	Name() string
	// NewRunner returns a runner for batches of up to maxBatch positions,
	// with its own scratch memory.
	NewRunner(maxBatch int) Runner
}

// Runner runs forward passes for one goroutine at a time.
type Runner interface {
	// Forward evaluates batch positions (1 <= batch <= maxBatch): input
	// holds batch*InputSize planes as Encode writes them (NHWC); Forward
	// writes batch*PolicySize policy logits to policy and batch*ValueSize
	// win/draw/loss logits to wdl. It does not keep the slices.
	Forward(input []float32, batch int, policy, wdl []float32)
}

// BackendFactory builds a backend for a network (which it must not keep
// or change; Check has passed).
type BackendFactory struct {
	// New builds the backend.
	New func(n *model.Network) (Backend, error)
	// Available reports whether this machine can run it (e.g. the CPU has
	// the instructions); nil means always.
	Available func() bool
	// Needs names what Available checks (e.g. "AVX512_VNNI"), for the
	// error when the backend is asked for where it is not available.
	Needs string
	// Auto marks a backend that "auto" may choose: the first available one
	// by Priority, highest first. fp32 is the fallback.
	Auto     bool
	Priority int
}

// Backend names with a fixed meaning.
const (
	// BackendAuto picks the fastest available backend marked Auto, or fp32.
	BackendAuto = "auto"
	// BackendFP32 is the package's own float32 kernels, available everywhere.
	BackendFP32 = fp32Name
)

// backends holds the registered backends, from the start the package's
// own: fp32, and the bf16 and int8 ones where the CPU has their
// instructions (infer_bf16.go, infer_int8.go).
var backends = struct {
	sync.Mutex
	m map[string]BackendFactory
}{m: map[string]BackendFactory{
	fp32Name: {New: newFP32Backend},
	bf16Name: {
		New:       newBF16Backend,
		Available: func() bool { return bf16Available() },
		Needs:     "AVX512_BF16 (or FEAT_BF16 on arm64)",
		// Not auto: int8 ran faster on every AVX512_BF16 CPU measured
		// (infer_bf16.go).
		Auto: false,
	},
	int8Name: {
		New:       newInt8Backend,
		Available: func() bool { return int8Available() },
		Needs:     "AVX2 (or FEAT_DotProd on arm64)",
		// int8 on amd64 (AVX2 and up): at equal time per move it beat
		// fp32 by +111 Elo [+74, +151] on an AVX2-only CPU, self-play on
		// it trained at least as well, and it ran faster than bf16 where
		// bf16 is native (docs/performance.md). Not on arm64, whose int8
		// speed was counted under an emulator only.
		Auto:     runtime.GOARCH == "amd64",
		Priority: 5,
	},
}}

// RegisterBackend makes a backend available by name. It panics if the
// name is empty, "auto" or taken (a programming error, as with
// database/sql.Register).
func RegisterBackend(name string, f BackendFactory) {
	backends.Lock()
	defer backends.Unlock()
	if name == "" || name == BackendAuto || f.New == nil {
		panic(fmt.Sprintf("infer: RegisterBackend(%q): invalid name or no constructor", name))
	}
	if _, ok := backends.m[name]; ok {
		panic(fmt.Sprintf("infer: RegisterBackend(%q): name taken", name))
	}
	backends.m[name] = f
}

// BackendNames returns the registered backend names, sorted, with "auto".
func BackendNames() []string {
	backends.Lock()
	defer backends.Unlock()
	names := []string{BackendAuto}
	for n := range backends.m {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	return names
}

// AvailableBackends returns the names of the backends this machine can
// run, sorted (BackendNames less those ResolveBackend refuses here, and
// BackendAuto).
func AvailableBackends() []string {
	var here []string
	for _, n := range BackendNames() {
		if _, err := ResolveBackend(n); err == nil && n != BackendAuto {
			here = append(here, n)
		}
	}
	return here
}

// ResolveBackend returns the backend name that name selects on this
// machine: "" is "auto", and "auto" the available Auto backend of highest
// priority, or fp32. An unknown or unavailable name is an error naming
// the valid ones.
func ResolveBackend(name string) (string, error) {
	backends.Lock()
	defer backends.Unlock()
	names := make([]string, 0, len(backends.m))
	for n := range backends.m {
		names = append(names, n)
	}
	sort.Strings(names)
	if name == "" || name == BackendAuto {
		best, bestPri := fp32Name, math.MinInt
		for _, n := range names {
			f := backends.m[n]
			if f.Auto && (f.Available == nil || f.Available()) && f.Priority > bestPri {
				best, bestPri = n, f.Priority
			}
		}
		return best, nil
	}
	f, ok := backends.m[name]
	if !ok {
		return "", fmt.Errorf("infer: unknown backend %q (valid: %s, %s)", name, BackendAuto, strings.Join(names, ", "))
	}
	if f.Available != nil && !f.Available() {
		needs := ""
		if f.Needs != "" {
			needs = ": it needs " + f.Needs
		}
		return "", fmt.Errorf("infer: backend %q is not supported by this CPU%s (use %s or %s)", name, needs, BackendAuto, fp32Name)
	}
	return name, nil
}

// NewBackend builds the backend that name selects (see ResolveBackend)
// for a network.
func NewBackend(name string, n *model.Network) (Backend, error) {
	name, err := ResolveBackend(name)
	if err != nil {
		return nil, err
	}
	if err := n.Check(); err != nil {
		return nil, err
	}
	backends.Lock()
	f := backends.m[name]
	backends.Unlock()
	b, err := f.New(n)
	if err != nil {
		return nil, fmt.Errorf("infer: backend %s: %w", name, err)
	}
	return b, nil
}

// ExplainBackend says in one line which backend name selects on this
// machine and why: for "auto", the backend it chose and, for each other
// one, the CPU feature it lacks or that "auto" never chooses it; for the
// int8 backend, the kernel level its instructions come from. Commands print
// it where they open a network, so a user sees why a run is as fast as it
// is.
func ExplainBackend(name string) string {
	chosen, err := ResolveBackend(name)
	if err != nil {
		return err.Error()
	}
	auto := name == "" || name == BackendAuto
	backends.Lock()
	names := make([]string, 0, len(backends.m))
	for n := range backends.m {
		names = append(names, n)
	}
	sort.Strings(names)
	var why []string
	for _, n := range names {
		f := backends.m[n]
		switch {
		case n == chosen || strings.HasPrefix(n, "test-"):
		case f.Available != nil && !f.Available():
			why = append(why, fmt.Sprintf("%s needs %s", n, f.Needs))
		case auto && !f.Auto && n != fp32Name:
			why = append(why, fmt.Sprintf("%s runs here but auto does not choose it", n))
		}
	}
	backends.Unlock()
	s := chosen + " (asked for)"
	if auto {
		s = "auto chose " + chosen
	}
	if chosen == int8Name {
		s += fmt.Sprintf(" on the %s int8 kernels: %s", kernel.I8Level(), kernel.I8LevelReason())
	}
	if len(why) > 0 {
		s += "; " + strings.Join(why, "; ")
	}
	return s
}
