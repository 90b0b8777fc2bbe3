package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/model"
)

func TestModelNewAndInfo(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.ckpt"), filepath.Join(dir, "b.ckpt"), filepath.Join(dir, "c.ckpt")
	for _, tc := range []struct {
		path string
		seed string
	}{{a, "7"}, {b, "7"}, {c, "8"}} {
		if code, _, errs := runCmd(t, "model", "new", "--preset", "tiny", "--out", tc.path, "--seed", tc.seed); code != 0 {
			t.Fatalf("model new: exit %d, %s", code, errs)
		}
	}
	ca, err := model.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	cb, _ := model.Load(b)
	cc, _ := model.Load(c)
	same := func(x, y *model.Network) bool {
		for i := range x.Tensors {
			for j := range x.Tensors[i].Data {
				if x.Tensors[i].Data[j] != y.Tensors[i].Data[j] {
					return false
				}
			}
		}
		return true
	}
	if !same(ca.Net, cb.Net) {
		t.Errorf("same seed gave different weights")
	}
	if same(ca.Net, cc.Net) {
		t.Errorf("different seeds gave the same weights")
	}
	code, out, errs := runCmd(t, "model", "info", a)
	if code != 0 {
		t.Fatalf("model info: exit %d, %s", code, errs)
	}
	for _, want := range []string{"format      version 1", "config      tiny (2 blocks x 16 filters", "step        0", "parent      -", "digest      " + ca.Net.Config.Digest(), "parameters  ", "bytes)", "created     20", "backend     ", "(auto on this CPU; available: ", "fp32"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

func TestModelErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ckpt")
	os.WriteFile(bad, []byte("DAMANET\x1a\x01\x00\x00\x00garbage"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"model", "info", bad}, "truncated"},
		{[]string{"model", "info", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"model", "new", "--preset", "huge", "--out", filepath.Join(dir, "x")}, "valid: small, tiny, workstation"},
		{[]string{"model", "new", "--preset", "tiny"}, "--out is required"},
		{[]string{"model", "frob"}, "unknown verb"},
		{[]string{"model"}, "missing verb"},
	} {
		code, _, errs := runCmd(t, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line containing %q", tc.args, code, errs, tc.want)
		}
	}
}

// A run folder, or its best file, is accepted where a model is expected
// (issue 13, point 3).
func TestModelFromRunFolder(t *testing.T) {
	run := t.TempDir()
	if err := os.MkdirAll(filepath.Join(run, "accepted"), 0o755); err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(run, "accepted", "0000.ckpt")
	if code, _, errs := runCmd(t, "model", "new", "--preset", "tiny", "--out", ck); code != 0 {
		t.Fatalf("model new: exit %d, %s", code, errs)
	}
	if err := os.WriteFile(filepath.Join(run, "best"), []byte("accepted/0000.ckpt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"model", "info", run},
		{"model", "info", filepath.Join(run, "best")},
		{"export", "--model", run, "--format", "json", "--out", filepath.Join(t.TempDir(), "m.json")},
	} {
		if code, out, errs := runCmd(t, args...); code != 0 {
			t.Errorf("%v: exit %d, stderr %q, output %q", args, code, errs, out)
		}
	}
}
