//go:build amd64 && !purego

package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The instructions the Go assembler does not know are emitted by
// gen_amd64.go as BYTE directives, each line commented with the
// instruction in Go's operand order. This machine may not run them (the
// AVX-VNNI kernel runs only on CPUs that have it), so GNU objdump checks
// their encodings: each line's bytes must decode to exactly the
// instruction its comment names, and the AVX-VNNI ones must be
// VEX-encoded.
func TestRawEncodings(t *testing.T) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Skip("objdump (GNU binutils) is not installed")
	}
	src, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^\s*((?:BYTE \$0x[0-9a-f]{2}; )*BYTE \$0x[0-9a-f]{2}) // (\S+) ([^(]*?)(?: \((AVX-VNNI)\))?$`)
	seen := map[string]bool{}
	for _, l := range strings.Split(string(src), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil || seen[l] {
			continue
		}
		seen[l] = true
		var code []byte
		for _, f := range strings.Split(m[1], "; ") {
			v, err := strconv.ParseUint(strings.TrimPrefix(f, "BYTE $0x"), 16, 8)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			code = append(code, byte(v))
		}
		// Go's order is Intel's reversed; registers Y1 -> ymm1.
		ops := strings.Split(m[3], ", ")
		for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
			ops[i], ops[j] = ops[j], ops[i]
		}
		for i, o := range ops {
			ops[i] = map[byte]string{'X': "xmm", 'Y': "ymm", 'Z': "zmm"}[o[0]] + o[1:]
		}
		want := strings.ToLower(m[2]) + " " + strings.Join(ops, ",")
		if m[4] != "" {
			want = "{vex} " + want
		}
		f := filepath.Join(t.TempDir(), "code.bin")
		if err := os.WriteFile(f, code, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(objdump, "-D", "-b", "binary", "-m", "i386:x86-64", "-M", "intel", f).CombinedOutput()
		if err != nil {
			t.Fatalf("objdump: %v\n%s", err, out)
		}
		// The one instruction: "   0:\t<bytes>\t<text>".
		var got string
		for _, ol := range strings.Split(string(out), "\n") {
			if fs := strings.Split(ol, "\t"); len(fs) == 3 && strings.TrimSpace(fs[0]) == "0:" {
				got = strings.Join(strings.Fields(fs[2]), " ")
			}
		}
		if got != want {
			t.Errorf("%s\n\tdecodes as %q, want %q", l, got, want)
		}
	}
	t.Logf("%d encodings checked", len(seen))
	if len(seen) < 3 {
		t.Errorf("found %d instructions in BYTE directives, want the VDPBF16PS, VCVTNEPS2BF16 and VPDPBUSD ones", len(seen))
	}
}
