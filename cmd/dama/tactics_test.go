package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/tactics"
)

func TestHybridPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	defer func(b string) { checkpointBackend = b }(checkpointBackend)
	checkpointBackend = "" // another command's test may have left its --backend
	for spec, want := range map[string]struct {
		label      string
		pass       bool
		mm, cb     int
		timedModel bool
	}{
		ck + "@800+mm":                {"sample-v1.ckpt@800+mm4", false, 4, 0, false},
		ck + "@800+mm2":               {"sample-v1.ckpt@800+mm2", false, 2, 0, false},
		ck + "@t0.25+pass+cmb2":       {"sample-v1.ckpt@t0.25+pass+cmb2", true, 0, 2, true},
		ck + "@100+cmb+pass+mm3:fp32": {"sample-v1.ckpt@100+pass+mm3+cmb3:fp32", true, 3, 3, false},
		ck + "@100+ip2+cmb":           {"sample-v1.ckpt@100+cmb3+ip2", false, 0, 3, false},
	} {
		p, err := parsePlayerSpec(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		mp := p.(*modelPlayer)
		if mp.Label != want.label || mp.Options.PassForced != want.pass || (mp.Time > 0) != want.timedModel {
			t.Errorf("%s: label %q pass %v time %v; want %q, pass %v", spec, mp.Label, mp.Options.PassForced, mp.Time, want.label, want.pass)
		}
		o, _ := mp.Options.Oracle.(*tactics.Minimax)
		if (o != nil) != (want.mm > 0) || o != nil && (o.Depth != want.mm || !mp.Options.Solver) {
			t.Errorf("%s: oracle %+v solver %v, want depth %d", spec, mp.Options.Oracle, mp.Options.Solver, want.mm)
		}
		ev := mp.Evaluator
		if ip, ok := ev.(*tactics.Priors); ok {
			ev = ip.Inner
			if !strings.Contains(spec, "+ip2") || ip.Depth != 2 {
				t.Errorf("%s: informed priors of depth %d", spec, ip.Depth)
			}
		} else if strings.Contains(spec, "+ip") {
			t.Errorf("%s: evaluator %T, want informed priors", spec, ev)
		}
		c, _ := ev.(*tactics.Combinations)
		if (c != nil) != (want.cb > 0) || c != nil && (c.Depth != want.cb || c.Inner != mp.ev) {
			t.Errorf("%s: evaluator %T, want combinations of depth %d around the network", spec, mp.Evaluator, want.cb)
		}
		mp.Close()
	}
	for _, bad := range []string{"@800+mm0", "@800+mm9", "@800+mmx", "@800+cmb-1", "@800+foo", "@800+ip0", "@800+mm+mm", "@t0.25+", "@800+pass+"} {
		_, err := parsePlayerSpec(ck + bad)
		if err == nil || !strings.Contains(err.Error(), `"`+ck+bad+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the spec", bad, err)
		}
	}
}

// TestTacticsCommand scores players on a suite of wins in 3 and builds a
// suite from a committed game, and refuses bad input with one line.
func TestTacticsCommand(t *testing.T) {
	dir := t.TempDir()
	suite := &tactics.Suite{}
	for _, pz := range evaltest.WinIn3 {
		suite.Positions = append(suite.Positions, tactics.Position{FEN: pz.FEN, Best: []string{pz.Win}})
	}
	path := filepath.Join(dir, "suite.json")
	if err := suite.Write(path); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "tactics", "--suite", path, "--player", "classic:3,random", "--verbose")
	if code != 0 || !strings.Contains(out, "classic:3: solved 3 of 3 (100.0%)") || !strings.Contains(out, "random: solved ") || strings.Count(out, "best ") != 6 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// --tb gives the players marked +tb the tables: at a table root the
	// engine plays a move that keeps the win, here the only one of six
	// (the table's answer, which one visit of the sample network misses).
	tables := filepath.Join(dir, "tb")
	if code, _, errs := runCmd(t, "tb", "gen", "--pieces", "3", "--out", tables); code != 0 {
		t.Fatal(errs)
	}
	ending := &tactics.Suite{Positions: []tactics.Position{{FEN: "W:WK20,14:BK19", Best: []string{"14-10"}}}}
	endingPath := filepath.Join(dir, "ending.json")
	if err := ending.Write(endingPath); err != nil {
		t.Fatal(err)
	}
	ck := "../../model/testdata/sample-v1.ckpt"
	code, out, errs = runCmd(t, "tactics", "--suite", endingPath, "--tb", tables, "--player", ck+"@1+tb,"+ck+"@1")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@1+tb: solved 1 of 1") || !strings.Contains(out, "sample-v1.ckpt@1: solved 0 of 1") {
		t.Errorf("tables: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	built := filepath.Join(dir, "built.json")
	code, out, errs = runCmd(t, "tactics", "--build", "--pdn", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "6", "--shallow", "2", "--screen", "6", "--limit", "2")
	if code != 0 || !strings.Contains(out, "2 positions") {
		t.Fatalf("build: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	s, err := tactics.ReadSuite(built)
	if err != nil || len(s.Positions) != 2 || s.ProvingDepth != 6 || !strings.Contains(s.Positions[0].Source, "shipped64-classic5.pdn game ") {
		t.Fatalf("built suite %+v: %v", s, err)
	}
	code, out, errs = runCmd(t, "tactics", "--build", "--append", "--pdn", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "6", "--shallow", "2", "--screen", "6", "--limit", "1")
	if s2, err := tactics.ReadSuite(built); code != 0 || err != nil || len(s2.Positions) != 3 || s2.Positions[0].FEN != s.Positions[0].FEN {
		t.Errorf("append: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	// The audit records the slower wins of forced-win positions (here the
	// project suite's of three pieces), and scoring counts them apart.
	project, err := tactics.ReadSuite("../../arena/tactics/suite.json")
	if err != nil {
		t.Fatal(err)
	}
	small := *project
	small.Positions = nil
	for _, p := range project.Positions {
		if strings.Count(p.FEN, ",") == 1 && p.Score > 900_000 { // three pieces
			p.Wins = nil
			small.Positions = append(small.Positions, p)
		}
	}
	small.AuditDepth, small.AuditTables = 0, 0
	smallPath, audited := filepath.Join(dir, "small.json"), filepath.Join(dir, "audited.json")
	if err := small.Write(smallPath); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "tactics", "--audit", "14", "--suite", smallPath, "--out", audited)
	if a, err := tactics.ReadSuite(audited); code != 0 || err != nil || a.AuditDepth != 14 || !strings.Contains(out, "proven to win at depth 14") {
		t.Fatalf("audit: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	code, out, errs = runCmd(t, "tactics", "--suite", audited, "--player", "classic:1", "--verbose")
	if code != 0 || !strings.Contains(out, "counting the slower wins proven at depth 14\n") {
		t.Errorf("score on the audited suite: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// With --tb the audit asks the tables too, and says so.
	code, out, errs = runCmd(t, "tactics", "--audit", "14", "--tb", tables, "--suite", smallPath, "--out", audited)
	if a, err := tactics.ReadSuite(audited); code != 0 || err != nil || a.AuditTables != 3 || !strings.Contains(out, "proven to win at depth 14 or by the tables of up to 3 pieces") {
		t.Fatalf("audit with tables: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	code, out, errs = runCmd(t, "tactics", "--suite", audited, "--player", "classic:1")
	if code != 0 || !strings.Contains(out, "counting the slower wins proven at depth 14 or by the tables of up to 3 pieces") {
		t.Errorf("score on the suite audited with tables: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"tactics", "--suite", path},
		{"tactics", "--suite", bad, "--player", "random"},
		{"tactics", "--suite", path, "--player", "nosuchplayer"},
		{"tactics", "--suite", path, "--player", "../../model/testdata/sample-v1.ckpt@1+tb"},
		{"tactics", "--build", "--out", built},
		{"tactics", "--audit", "14", "--suite", smallPath},
		{"tactics", "--audit", "12", "--suite", smallPath, "--out", audited},
		{"tactics", "--audit", "14", "--suite", smallPath, "--out", audited, "--player", "random"},
		{"tactics", "--build", "--append", "--pdn", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "7"},
	} {
		code, _, errs := runCmd(t, args...)
		if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") > 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q, want one error line", args, code, errs)
		}
	}
}

// TestHybridsFlag: --hybrids of hub, play and analyze takes a list of the
// hybrids, none, or refuses anything else with one line; analyze searches
// with them.
func TestHybridsFlag(t *testing.T) {
	for s, want := range map[string]searchSuffixes{
		"":            {threads: 1},
		"none":        {threads: 1},
		"cmb3,ip2":    {threads: 1, hy: tactics.Hybrids{Combinations: 3, Priors: 2}},
		"mm":          {threads: 1, hy: tactics.Hybrids{Minimax: tactics.DefaultMinimaxDepth}},
		"mm3,cmb,ip4": {threads: 1, hy: tactics.Hybrids{Minimax: 3, Combinations: tactics.DefaultCombinationsDepth, Priors: 4}},
	} {
		h, err := parseHybridsFlag(s)
		if err != nil || h != want {
			t.Errorf("%q: %+v %v, want %+v", s, h, err, want)
		}
	}
	for _, bad := range []string{"pass", "tb", "threads2", "cmb0", "foo", "mm,", "cmb3;ip2", "ab12", "mm4,abn"} {
		if _, err := parseHybridsFlag(bad); err == nil || !strings.Contains(err.Error(), "--hybrids") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	ck := "../../model/testdata/sample-v1.ckpt"
	code, out, errs := runCmd(t, "analyze", "--model", ck, "--fen", "W:W18,20,28:B10,16", "--visits", "30", "--hybrids", "mm3,cmb2,ip3")
	if code != 0 || !strings.Contains(out, "28-23") {
		t.Errorf("analyze: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCmd(t, "analyze", "--model", ck, "--hybrids", "bogus"); code == 0 || !strings.Contains(errs, "--hybrids") {
		t.Errorf("analyze --hybrids bogus: exit %d, stderr %q", code, errs)
	}
}

// TestDefaultHybrids: the --hybrids default names tactics.DefaultHybrids,
// which the web view's board searches with too.
func TestDefaultHybrids(t *testing.T) {
	h, err := parseHybridsFlag(defaultHybrids)
	d := tactics.DefaultHybrids
	if err != nil || h.hy != d {
		t.Errorf("--hybrids %q reads %+v, %v; tactics.DefaultHybrids is %+v", defaultHybrids, h, err, d)
	}
}

// TestRemovedVerifierSuffixes: a player spec naming one of the removed
// root verifiers is refused in one line that names the spec and the
// suffix, says it was removed and where the record is; so is --hybrids.
func TestRemovedVerifierSuffixes(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	for _, sfx := range []string{"ab", "abn", "abw", "abp", "abs"} {
		for _, spec := range []string{ck + "@100+" + sfx, ck + "@t0.25+pass+mm4+" + sfx + "12"} {
			_, err := parsePlayerSpec(spec)
			if err == nil || !strings.Contains(err.Error(), `"`+spec+`"`) || !strings.Contains(err.Error(), "+"+sfx+" was removed: ") ||
				!strings.Contains(err.Error(), "see docs/rating.md#tactics") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line saying +%s was removed", spec, err, sfx)
			}
		}
		code, _, errs := runCmd(t, "analyze", "--model", "random", "--visits", "10", "--hybrids", "mm4,"+sfx+"12")
		if code == 0 || !strings.Contains(errs, sfx+" was removed") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("analyze --hybrids mm4,%s12: exit %d, stderr %q", sfx, code, errs)
		}
	}
}
