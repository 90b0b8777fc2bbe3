package infer

import (
	"runtime"
	"strings"
	"testing"

	"dama/model/kernel"
)

// ExplainBackend names the backend that a request selects and, for
// "auto", why the others were not chosen.
func TestExplainBackend(t *testing.T) {
	saved := bf16Available
	defer func() { bf16Available = saved }()
	bf16Available = func() bool { return false }
	got := ExplainBackend(BackendAuto)
	if !strings.HasPrefix(got, "auto chose "+noBF16Auto()) || !strings.Contains(got, "bf16 needs AVX512_BF16") {
		t.Errorf("ExplainBackend(auto) without bf16 = %q; want the %s choice and bf16's missing feature", got, noBF16Auto())
	}
	if got := ExplainBackend(BackendFP32); !strings.HasPrefix(got, "fp32 (asked for)") {
		t.Errorf("ExplainBackend(fp32) = %q; want fp32 as asked for", got)
	}
	if int8Available() {
		got := ExplainBackend(int8Name)
		if !strings.Contains(got, "int8 kernels") || !strings.Contains(got, kernel.I8Level()) {
			t.Errorf("ExplainBackend(int8) = %q; want the int8 kernel level %s", got, kernel.I8Level())
		}
		if got := ExplainBackend(BackendAuto); runtime.GOARCH != "amd64" && !strings.Contains(got, "int8 runs here but auto does not choose it") {
			t.Errorf("ExplainBackend(auto) = %q; want int8 named as available but not chosen on %s", got, runtime.GOARCH)
		}
	} else if got := ExplainBackend(int8Name); !strings.Contains(got, "not supported by this CPU") {
		t.Errorf("ExplainBackend(int8) where int8 is not available = %q; want the refusal", got)
	}
	if got := ExplainBackend("bogus"); !strings.Contains(got, "unknown backend") {
		t.Errorf("ExplainBackend(bogus) = %q; want the unknown-backend error", got)
	}
}
