package main

import (
	"strings"
	"testing"
)

func TestBackendFlagErrors(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"selfplay", "--model", ck, "--games", "1", "--out", t.TempDir(), "--backend", "fp16"}, `unknown backend "fp16"`},
		{[]string{"arena", "--a", ck + "@2:fp16", "--b", "random", "--games", "2"}, `unknown backend "fp16"`},
		{[]string{"arena", "--a", ck + "@2:", "--b", "random", "--games", "2"}, "empty backend"},
		{[]string{"arena", "--a", ck + "@2", "--b", "random", "--games", "2", "--backend", "int3"}, `unknown backend "int3"`},
		{[]string{"analyze", "--model", ck, "--backend", "fp16"}, `unknown backend "fp16"`},
	} {
		code, _, errs := runCmd(t, c.args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 2 {
			t.Errorf("dama %s: exit %d, stderr %q; want an error with %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

func TestArenaBackendPerPlayer(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	code, out, errs := runCmd(t, "arena", "--a", ck+"@2:fp32", "--b", ck+"@2", "--games", "2", "--parallel", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out+errs, "sample-v1.ckpt@2:fp32") || !strings.Contains(errs, "network backend fp32") {
		t.Errorf("want the player labelled with its backend and the backend logged; stdout %q stderr %q", out, errs)
	}
}

func TestModelCompare(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	dir := t.TempDir()
	if code, _, errs := runCmd(t, "selfplay", "--model", ck, "--games", "2", "--visits", "4", "--parallel", "2", "--out", dir, "--quiet", "--backend", "fp32"); code != 0 {
		t.Fatalf("selfplay: exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCmd(t, "model", "compare", "--chunks", dir, "--backend", "fp32", "--against", "fp32", ck)
	if code != 0 {
		t.Fatalf("compare: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "top move agrees in 100.00% (0 differ), |dE| mean 0.00000 max 0.00000") || !strings.Contains(out, "bar (top move >= 99%, mean |dE| <= 0.01, max <= 0.05): true") {
		t.Errorf("fp32 against itself: %q", out)
	}
	for _, args := range [][]string{
		{"model", "compare", ck},
		{"model", "compare", "--chunks", t.TempDir(), ck},
		{"model", "compare", "--chunks", dir, "--backend", "fp16", ck},
	} {
		if code, _, errs := runCmd(t, args...); code == 0 || errs == "" {
			t.Errorf("dama %s: exit %d, stderr %q; want an error", strings.Join(args, " "), code, errs)
		}
	}
}
