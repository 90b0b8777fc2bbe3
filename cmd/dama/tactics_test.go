package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/tactics"
	"dama/tactics/suite"
)

func TestHybridPlayerSpec(t *testing.T) {
	ck := "../../model/testdata/sample-v1.ckpt"
	defer func(b string) { checkpointBackend = b }(checkpointBackend)
	checkpointBackend = "" // another command's test may have left its --backend
	for spec, want := range map[string]struct {
		label      string
		pass       bool
		mm, cb, ab int
		timedModel bool
	}{
		ck + "@800+mm":                {"sample-v1.ckpt@800+mm4", false, 4, 0, 0, false},
		ck + "@800+mm2":               {"sample-v1.ckpt@800+mm2", false, 2, 0, 0, false},
		ck + "@t0.25+pass+cmb2":       {"sample-v1.ckpt@t0.25+pass+cmb2", true, 0, 2, 0, true},
		ck + "@100+cmb+pass+mm3:fp32": {"sample-v1.ckpt@100+pass+mm3+cmb3:fp32", true, 3, 3, 0, false},
		ck + "@100+ip2+cmb":           {"sample-v1.ckpt@100+cmb3+ip2", false, 0, 3, 0, false},
		ck + "@100+ab+pass":           {"sample-v1.ckpt@100+pass+ab12", true, 0, 0, 12, false},
		ck + "@t0.1+ab20+cmb":         {"sample-v1.ckpt@t0.1+cmb3+ab20", false, 0, 3, 20, true},
		ck + "@t0.1+cmb+abn10":        {"sample-v1.ckpt@t0.1+cmb3+abn10", false, 0, 3, 10, true},
		ck + "@t0.1+abw10":            {"sample-v1.ckpt@t0.1+abw10", false, 0, 0, 10, true},
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
		v, _ := mp.Options.Check.(*tactics.Verifier)
		if (v != nil) != (want.ab > 0) || v != nil && v.Depth != want.ab {
			t.Errorf("%s: move check %+v, want a verifier of depth %d", spec, mp.Options.Check, want.ab)
		}
		// +abn judges by the evaluator the tree searches with.
		if judged := strings.Contains(spec, "+abn"); v != nil && (v.Judge != nil) != judged || judged && v.Judge != mp.Evaluator {
			t.Errorf("%s: verifier's judge %T, want the search's evaluator: %v", spec, v.Judge, judged)
		}
		if ahead := strings.Contains(spec, "+abw"); v != nil && v.AheadOnly != ahead {
			t.Errorf("%s: verifier AheadOnly %v, want %v", spec, v.AheadOnly, ahead)
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
	for _, bad := range []string{"@800+mm0", "@800+mm9", "@800+mmx", "@800+cmb-1", "@800+foo", "@800+ip0", "@800+ab0", "@800+ab41", "@800+ab+ab", "@800+ab+abn", "@800+abn12+ab", "@800+abn0", "@800+abw+ab", "@800+abn+abw", "@t0.25+", "@800+pass+"} {
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
	puzzles := &suite.Suite{}
	for _, pz := range evaltest.WinIn3 {
		puzzles.Positions = append(puzzles.Positions, suite.Position{FEN: pz.FEN, Best: []string{pz.Win}})
	}
	path := filepath.Join(dir, "suite.json")
	if err := puzzles.Write(path); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "tactics", "--suite", path, "--player", "classic:3,random", "--verbose")
	if code != 0 || !strings.Contains(out, "classic:3: solved 3 of 3 (100.0%)") || !strings.Contains(out, "random: solved ") || strings.Count(out, "best ") != 6 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A player with the root verifier says what it did: every win in 3
	// checked (depth 4 sees each), none turned down, since a forced win
	// does not ask the network.
	code, out, errs = runCmd(t, "tactics", "--suite", path, "--player", "../../model/testdata/sample-v1.ckpt@8+abn4")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@8+abn4: verifier checked 3 moves") || !strings.Contains(out, ", 0 more turned down by the network") {
		t.Errorf("verifier: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// --tb gives the players marked +tb the tables: at a table root the
	// engine plays a move that keeps the win, here the only one of six
	// (the table's answer, which one visit of the sample network misses).
	tables := filepath.Join(dir, "tb")
	if code, _, errs := runCmd(t, "tb", "gen", "--pieces", "3", "--out", tables); code != 0 {
		t.Fatal(errs)
	}
	ending := &suite.Suite{Positions: []suite.Position{{FEN: "W:WK20,14:BK19", Best: []string{"14-10"}}}}
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
	s, err := suite.Read(built)
	if err != nil || len(s.Positions) != 2 || s.ProvingDepth != 6 || !strings.Contains(s.Positions[0].Source, "shipped64-classic5.pdn game ") {
		t.Fatalf("built suite %+v: %v", s, err)
	}
	code, out, errs = runCmd(t, "tactics", "--build", "--append", "--pdn", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "6", "--shallow", "2", "--screen", "6", "--limit", "1")
	if s2, err := suite.Read(built); code != 0 || err != nil || len(s2.Positions) != 3 || s2.Positions[0].FEN != s.Positions[0].FEN {
		t.Errorf("append: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	// The audit records the slower wins of forced-win positions (here the
	// project suite's of three pieces), and scoring counts them apart.
	project, err := suite.Read("../../arena/tactics/suite.json")
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
	if a, err := suite.Read(audited); code != 0 || err != nil || a.AuditDepth != 14 || !strings.Contains(out, "proven to win at depth 14") {
		t.Fatalf("audit: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	code, out, errs = runCmd(t, "tactics", "--suite", audited, "--player", "classic:1", "--verbose")
	if code != 0 || !strings.Contains(out, "counting the slower wins proven at depth 14\n") {
		t.Errorf("score on the audited suite: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// With --tb the audit asks the tables too, and says so.
	code, out, errs = runCmd(t, "tactics", "--audit", "14", "--tb", tables, "--suite", smallPath, "--out", audited)
	if a, err := suite.Read(audited); code != 0 || err != nil || a.AuditTables != 3 || !strings.Contains(out, "proven to win at depth 14 or by the tables of up to 3 pieces") {
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
		"cmb3,ab":     {threads: 1, hy: tactics.Hybrids{Combinations: 3, Verify: tactics.DefaultVerifyDepth}},
		"ab9":         {threads: 1, hy: tactics.Hybrids{Verify: 9}},
		"cmb3,abn":    {threads: 1, hy: tactics.Hybrids{Combinations: 3, Verify: tactics.DefaultVerifyDepth, Kind: tactics.VerifyJudged}},
		"abw10":       {threads: 1, hy: tactics.Hybrids{Verify: 10, Kind: tactics.VerifyAhead}},
		"abp":         {threads: 1, hy: tactics.Hybrids{Verify: tactics.DefaultVerifyDepth, Kind: tactics.VerifyProof}},
	} {
		h, err := parseHybridsFlag(s)
		if err != nil || h != want {
			t.Errorf("%q: %+v %v, want %+v", s, h, err, want)
		}
	}
	for _, bad := range []string{"pass", "tb", "threads2", "cmb0", "ab0", "foo", "mm,", "cmb3;ip2", "ab,abn", "abw,ab", "abn,abw"} {
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
