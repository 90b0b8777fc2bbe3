package main

import (
	"strings"
	"testing"
	"time"

	"dama/tb"
)

func TestTimedModelPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for spec, want := range map[string]struct {
		label string
		time  time.Duration
		pass  bool
	}{
		ck + "@t0.25":            {"sample-v1.ckpt@t0.25", 250 * time.Millisecond, false},
		ck + "@t0.05+pass":       {"sample-v1.ckpt@t0.05+pass", 50 * time.Millisecond, true},
		ck + "@t250ms+pass:fp32": {"sample-v1.ckpt@t250ms+pass:fp32", 250 * time.Millisecond, true},
		ck + "@t2s":              {"sample-v1.ckpt@t2s", 2 * time.Second, false},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		if mp.Label != want.label || mp.Time != want.time || mp.Visits != 0 || mp.Options.PassForced != want.pass {
			t.Errorf("%s: label %q time %v visits %d pass %v; want %q, %v, 0 visits, pass %v", spec, mp.Label, mp.Time, mp.Visits, mp.Options.PassForced, want.label, want.time, want.pass)
		}
		mp.Close()
	}
	for _, bad := range []string{"@t0", "@t0.0", "@t-0.25", "@tNaN", "@tInf", "@t+Inf", "@t3601.0", "@t7200s", "@t1", "@t", "@t0.25x", "@t0.25+pas"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
	code, out, errs := runCmd(t, "arena", "--a", ck+"@t0.01+pass", "--b", "classic:t0.01", "--games", "2", "--parallel", "1", "--quiet")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@t0.01+pass vs classic:t0.01") {
		t.Errorf("arena: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestLadderTimeErrors(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for v, want := range map[string]string{"-1": "0.001..3600", "3601": "0.001..3600", "0.0001": "0.001..3600", "NaN": "not a number", "+Inf": "finite"} {
		code, _, errs := runCmd(t, "ladder", "--model", ck, "--time", v, "--quiet")
		if code == 0 || !strings.Contains(errs, "--time "+v) || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("ladder --time %s: exit %d, stderr %q; want a one-line error naming --time and %q", v, code, errs, want)
		}
	}
}

// TestTablesPlayerSpec: "PATH@N+tb" plays with the tables of --tb (the
// search's oracle, the solver on, the label marked), in either order with
// +pass; without --tb it is an error naming the spec.
func TestTablesPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	defer func() { checkpointTables = "" }()
	checkpointTables = ""
	if _, err := parsePlayerSpec(ck + "@8+tb"); err == nil || !strings.Contains(err.Error(), "+tb needs the tables' folder (--tb DIR)") {
		t.Errorf("+tb without --tb: %v", err)
	}
	checkpointTables = t.TempDir()
	if _, err := parsePlayerSpec(ck + "@8+tb"); err == nil || !strings.Contains(err.Error(), "--tb: ") || !strings.Contains(err.Error(), "no endgame tables") {
		t.Errorf("+tb with an empty folder: %v", err)
	}
	if code, _, errs := runCmd(t, "tb", "gen", "--pieces", "2", "--out", checkpointTables); code != 0 {
		t.Fatal(errs)
	}
	for spec, label := range map[string]string{
		ck + "@8+tb":      "sample-v1.ckpt@8+tb",
		ck + "@8+pass+tb": "sample-v1.ckpt@8+pass+tb",
		ck + "@8+tb+pass": "sample-v1.ckpt@8+pass+tb",
		ck + "@8":         "sample-v1.ckpt@8",
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		with := strings.Contains(spec, "+tb")
		if _, ok := mp.Options.Oracle.(tb.Oracle); mp.Label != label || ok != with || mp.Options.Solver != with {
			t.Errorf("%s: label %q oracle %v solver %v; want %q and tables %v", spec, mp.Label, mp.Options.Oracle, mp.Options.Solver, label, with)
		}
		mp.Close()
	}
}
