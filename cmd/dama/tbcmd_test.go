package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/tb/tbtest"
)

// TestTB: dama tb gen writes the tables and a rerun skips them; info lists
// and checks them; probe prints the value, the distance and the moves that
// keep it; bad input (a damaged file, too many pieces, a missing verb) is
// one error line and exit 1 or 2.
func TestTB(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tb")
	code, out, errs := runCmd(t, "tb", "gen", "--pieces", "3", "--out", dir)
	if code != 0 || !strings.Contains(out, "16 signatures of 2 to 3 pieces in "+dir+": 0 already there, 16 generated") {
		t.Fatalf("gen: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "tb", "gen", "--pieces", "3", "--out", dir)
	if code != 0 || !strings.Contains(out, "16 already there, 0 generated") {
		t.Errorf("gen again: exit %d, stdout %q", code, out)
	}
	code, out, errs = runCmd(t, "tb", "info", dir)
	if code != 0 || !strings.Contains(out, "0201   2 kings v 1 king") || !strings.Contains(out, "16 tables in "+dir+", complete up to 3 pieces") {
		t.Errorf("info: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCmd(t, "tb", "probe", "--dir", dir, "--fen", "W:WK29,K32:BK1")
	if code != 0 || !strings.Contains(out, "W:WK29,K32:BK1 (white to move, 40-move counter 0): win; stored: win, 11 plies") ||
		!strings.Contains(out, "moves that keep the win: ") {
		t.Errorf("probe: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "tb", "probe", "--dir", dir, "--fen", "W:WK29,K32:BK1", "--quiet-plies", "70")
	if code != 0 || !strings.Contains(out, "40-move counter 70): draw") {
		t.Errorf("probe at quiet 70: exit %d, stdout %q", code, out)
	}
	code, _, errs = runCmd(t, "tb", "probe", "--dir", dir, "--fen", "W:WK29,K32:BK1,2")
	if code != 1 || errs != "dama tb: W:WK29,K32:BK1,2: not in the tables (4 pieces, have up to 3)\n" {
		t.Errorf("probe of 4 pieces: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCmd(t, "tb", "frobnicate")
	if code != 1 || !strings.Contains(errs, `unknown verb "frobnicate"`) {
		t.Errorf("a bad verb: exit %d, stderr %q", code, errs)
	}
	// analyze --tb plays the one move of least distance (5-10, a win in
	// 23 plies; of the 6 moves the others win slower or not at all).
	code, out, errs = runCmd(t, "analyze", "--model", "random", "--tb", dir, "--fen", "W:WK3,K5:BK12", "--visits", "40")
	if code != 0 || !strings.Contains(out, "Best move: ") {
		t.Fatalf("analyze --tb: exit %d, stderr %q", code, errs)
	}
	best := strings.Fields(out[strings.Index(out, "Best move: "):])[2]
	if best != "5-10" {
		t.Errorf("analyze --tb: best move %s, not 5-10, the tables' fastest win", best)
	}
	// --tb auto:3 generates the same tables into the user's cache folder
	// (a line on stderr says so) and plays the same move.
	tbtest.Cache(t)
	code, out, errs = runCmd(t, "analyze", "--model", "random", "--tb", "auto:3", "--fen", "W:WK3,K5:BK12", "--visits", "40")
	if code != 0 || !strings.Contains(out, "Best move: 5-10") || !strings.Contains(errs, "endgame tables of up to 3 pieces: generated 16 of 16 signatures") {
		t.Errorf("analyze --tb auto:3: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// match: with the tables every won position is won.
	code, out, errs = runCmd(t, "tb", "match", "--dir", dir, "--pieces", "3", "--games", "3", "--visits", "8", "--model", "../../model/testdata/sample-v1.ckpt")
	if code != 0 || !strings.Contains(out, "3 won positions of 3 pieces, sample-v1.ckpt@8+plain+pass at 8 visits on both sides: won ") || !strings.HasSuffix(out, ", 3 with them\n") {
		t.Errorf("match: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCmd(t, "tb", "match", "--dir", dir, "--pieces", "4")
	if code != 1 || !strings.Contains(errs, "the tables of "+dir+" go up to 3") {
		t.Errorf("match of 4 pieces in 3-piece tables: exit %d, stderr %q", code, errs)
	}
	path := filepath.Join(dir, "0102.dtb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[40] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmd(t, "tb", "info", dir)
	if code != 1 || !strings.Contains(errs, path+": endgame table: checksum mismatch") || strings.Count(errs, "\n") != 1 {
		t.Errorf("info of a damaged table: exit %d, stderr %q", code, errs)
	}
}

// TestTBVerify: gen verifies what it made and records it; verify checks
// every entry again and says so; a forged table (every entry a draw, its
// checksum recomputed) is refused by info, probe and the engine with one
// line naming it, and verify lists what one ply says and exits 1.
func TestTBVerify(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tb")
	code, out, errs := runCmd(t, "tb", "gen", "--pieces", "3", "--out", dir)
	if code != 0 || !strings.Contains(out, "16 tables of 2 to 3 pieces in "+dir+": 202280 entries checked against one ply") || !strings.Contains(out, ": 0 inconsistencies; 16 tables verified") {
		t.Fatalf("gen: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCmd(t, "tb", "verify", "--threads", "2", dir)
	if code != 0 || !strings.Contains(out, "16 tables of 2 to 3 pieces in "+dir+": 202280 entries checked against one ply on 2 threads in ") || !strings.Contains(out, ": 0 inconsistencies; 16 tables verified") {
		t.Errorf("verify: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "tb", "info", dir)
	if code != 0 || !strings.Contains(out, "entries: all 16 tables vouched for by verified.stamp and sampled") {
		t.Errorf("info: exit %d, stdout %q", code, out)
	}
	path := filepath.Join(dir, "0201.dtb")
	tbtest.ForgeDraws(t, path)
	refused := path + ": endgame table: entries inconsistent with their moves ("
	for _, args := range [][]string{
		{"tb", "info", dir},
		{"tb", "probe", "--dir", dir, "--fen", "W:WK29,K32:BK1"},
		{"analyze", "--model", "random", "--tb", dir, "--fen", "W:WK3,K5:BK12", "--visits", "4"},
	} {
		code, _, errs = runCmd(t, args...)
		if code != 1 || !strings.Contains(errs, refused) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s of a forged table: exit %d, stderr %q; want one line with %q", args[:2], code, errs, refused)
		}
	}
	code, out, errs = runCmd(t, "tb", "verify", "--threads", "1", dir)
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if code != 1 || !strings.Contains(lines[len(lines)-1], refused) ||
		!strings.HasPrefix(out, path+": W:") || !strings.Contains(out, "is stored as draw; its moves give win") || !strings.Contains(out, "on 1 threads") ||
		!strings.Contains(out, path+": ") || !strings.Contains(out, " inconsistencies; 4 tables verified") {
		t.Errorf("verify of a forged table: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCmd(t, "tb", "verify")
	if code != 1 || !strings.Contains(errs, "verify: want one folder, got 0 arguments") {
		t.Errorf("verify without a folder: exit %d, stderr %q", code, errs)
	}
}
