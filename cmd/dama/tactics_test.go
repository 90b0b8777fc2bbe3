package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/internal/evaltest"
	"dama/tactics/suite"
)

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
	code, out, errs := runCmd(t, "tactics", "--suite", path, "--players", "classic:3,random", "--verbose")
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
	ending := &suite.Suite{Positions: []suite.Position{{FEN: "W:WK20,14:BK19", Best: []string{"14-10"}}}}
	endingPath := filepath.Join(dir, "ending.json")
	if err := ending.Write(endingPath); err != nil {
		t.Fatal(err)
	}
	ck := "../../model/testdata/sample-v1.ckpt"
	code, out, errs = runCmd(t, "tactics", "--suite", endingPath, "--tb", tables, "--players", ck+"@1+tb,"+ck+"@1")
	if code != 0 || !strings.Contains(out, "sample-v1.ckpt@1+tb: solved 1 of 1") || !strings.Contains(out, "sample-v1.ckpt@1: solved 0 of 1") {
		t.Errorf("tables: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	built := filepath.Join(dir, "built.json")
	code, out, errs = runCmd(t, "tactics", "build", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "6", "--shallow", "2", "--screen", "6", "--limit", "2")
	if code != 0 || !strings.Contains(out, "2 positions") {
		t.Fatalf("build: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	s, err := suite.Read(built)
	if err != nil || len(s.Positions) != 2 || s.ProvingDepth != 6 || !strings.Contains(s.Positions[0].Source, "shipped64-classic5.pdn game ") {
		t.Fatalf("built suite %+v: %v", s, err)
	}
	code, out, errs = runCmd(t, "tactics", "build", "--append", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "6", "--shallow", "2", "--screen", "6", "--limit", "1")
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
	code, out, errs = runCmd(t, "tactics", "audit", "--audit", "14", "--suite", smallPath, "--out", audited)
	if a, err := suite.Read(audited); code != 0 || err != nil || a.AuditDepth != 14 || !strings.Contains(out, "proven to win at depth 14") {
		t.Fatalf("audit: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	code, out, errs = runCmd(t, "tactics", "--suite", audited, "--players", "classic:1", "--verbose")
	if code != 0 || !strings.Contains(out, "counting the slower wins proven at depth 14\n") {
		t.Errorf("score on the audited suite: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// With --tb the audit asks the tables too, and says so.
	code, out, errs = runCmd(t, "tactics", "audit", "--audit", "14", "--tb", tables, "--suite", smallPath, "--out", audited)
	if a, err := suite.Read(audited); code != 0 || err != nil || a.AuditTables != 3 || !strings.Contains(out, "proven to win at depth 14 or by the tables of up to 3 pieces") {
		t.Fatalf("audit with tables: exit %d, stdout %q, stderr %q, suite %v", code, out, errs, err)
	}
	code, out, errs = runCmd(t, "tactics", "--suite", audited, "--players", "classic:1")
	if code != 0 || !strings.Contains(out, "counting the slower wins proven at depth 14 or by the tables of up to 3 pieces") {
		t.Errorf("score on the suite audited with tables: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"tactics", "--suite", path},
		{"tactics", "--suite", bad, "--players", "random"},
		{"tactics", "--suite", path, "--players", "nosuchplayer"},
		{"tactics", "--suite", path, "--players", "../../model/testdata/sample-v1.ckpt@1+tb"},
		{"tactics", "build", "--out", built},
		{"tactics", "audit", "--audit", "14", "--suite", smallPath},
		{"tactics", "audit", "--audit", "12", "--suite", smallPath, "--out", audited},
		{"tactics", "audit", "--audit", "14", "--suite", smallPath, "--out", audited, "--players", "random"},
		{"tactics", "build", "--append", "../../arena/tactics/games/shipped64-classic5.pdn", "--out", built, "--depth", "7"},
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
	for _, bad := range []string{"pass", "tb", "threads2", "cmb0", "foo", "mm,", "cmb3;ip2", "ab12", "mm4,abn"} {
		code, _, errs := runCmd(t, "analyze", "--model", "random", "--visits", "10", "--hybrids", bad)
		if code == 0 || !strings.Contains(errs, "--hybrids") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("--hybrids %q: exit %d, stderr %q", bad, code, errs)
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
