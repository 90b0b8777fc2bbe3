package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/checkpoints"
	"dama/engine"
	"dama/mcts"
	"dama/model"
	"dama/model/export"
	"dama/rules"
)

// tinyCheckpoint saves a freshly initialised tiny network and returns its path.
func tinyCheckpoint(t *testing.T) string {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.ckpt")
	ck := &model.Checkpoint{Net: model.NewSeededNetwork(cfg, 1), Step: 42}
	if err := ck.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// runStdin runs dama with args, its standard input reading text, and
// returns its exit code, stdout and stderr.
func runStdin(t *testing.T, text string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := newEnv(&out, &errb)
	e.stdin = strings.NewReader(text)
	code := runEnv(e, args)
	return code, out.String(), errb.String()
}

func TestExportCommand(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	dir := t.TempDir()
	onnx := filepath.Join(dir, "net.onnx")
	code, out, errs := runCmd(t, "export", "--model", ckpt, "--format", "onnx", "--out", onnx)
	if code != 0 || !strings.Contains(out, "wrote "+onnx) {
		t.Fatalf("export onnx: exit %d, %q %q", code, out, errs)
	}
	if st, err := os.Stat(onnx); err != nil || st.Size() < 1000 {
		t.Fatalf("ONNX file: %v", err)
	}
	js := filepath.Join(dir, "net.json")
	if code, _, errs := runCmd(t, "export", "--model", ckpt, "--format", "json", "--out", js); code != 0 {
		t.Fatalf("export json: exit %d, %q", code, errs)
	}
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	net, err := export.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if net.Config.Blocks != 2 || net.Config.Filters != 16 {
		t.Errorf("JSON config %+v", net.Config)
	}
	for _, args := range [][]string{
		{"export", "--model", ckpt, "--format", "tflite", "--out", js},
		{"export", "--model", filepath.Join(dir, "missing.ckpt"), "--out", js},
		{"export", "--model", ckpt},
	} {
		if code, _, errs := runCmd(t, args...); code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want a one-line error", args, code, errs)
		}
	}
}

// dama export takes the model names of hub, play and analyze: none or
// "shipped" is the shipped model (issue 19, item 6); "random" has no network.
func TestExportShippedModel(t *testing.T) {
	if _, err := checkpoints.Shipped(); err != nil {
		t.Skipf("no shipped model: %v", err)
	}
	dir := t.TempDir()
	var files [2][]byte
	for i, args := range [][]string{{}, {"--model", "shipped"}} {
		out := filepath.Join(dir, fmt.Sprintf("m%d.json", i))
		code, stdout, errs := runCmd(t, append([]string{"export", "--format", "json", "--out", out}, args...)...)
		if code != 0 || !strings.Contains(stdout, "wrote "+out) {
			t.Fatalf("export %v: exit %d, %q %q", args, code, stdout, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("export with no --model and with --model shipped differ")
	}
	code, _, errs := runCmd(t, "export", "--model", "random", "--out", filepath.Join(dir, "r.onnx"))
	if code == 0 || !strings.Contains(errs, "no network") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("export --model random: exit %d, stderr %q; want a one-line error", code, errs)
	}
	code, stdout, errs := runCmd(t, "analyze", "--model", "shipped", "--visits", "4", "--top", "1")
	if code != 0 || !strings.Contains(stdout, "shipped model") {
		t.Errorf("analyze --model shipped: exit %d, stderr %q, output:\n%s", code, errs, stdout)
	}
	code, stdout, errs = runCmd(t, "arena", "--a", "shipped@4", "--b", "random", "--games", "2", "--quiet")
	if code != 0 || !strings.Contains(stdout, "shipped@4 vs random") {
		t.Errorf("arena --a shipped@4: exit %d, stderr %q, output:\n%s", code, errs, stdout)
	}
}

func TestHubCommand(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	script := "hub\ninit\npos pos=" + engine.FormatHubPosition(rules.Start()) + "\nlevel nodes=30\ngo think\nping\nquit\n"
	code, out, errs := runStdin(t, script, "hub", "--model", ckpt)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"id name=dama", "param name=variant value=italian", "wait", "ready", "done move=", "pong"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlayCommand(t *testing.T) {
	pdn := filepath.Join(t.TempDir(), "game.pdn")
	code, out, errs := runStdin(t, "22-18\nquit\n", "play", "--model", "random", "--visits", "10", "--pdn", pdn)
	if code != 0 || !strings.Contains(out, "game saved to "+pdn) {
		t.Fatalf("exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	b, err := os.ReadFile(pdn)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rules.ParsePDN(string(b))
	if err != nil || len(recs) != 1 || len(recs[0].Moves) != 2 || recs[0].Moves[0].String() != "22-18" {
		t.Fatalf("saved game %v %v:\n%s", recs, err, b)
	}
	if code, _, _ := runCmd(t, "play", "--model", "random", "--as", "red"); code == 0 {
		t.Error("--as red accepted")
	}
	// A line over 64 KiB is a one-line error, not a quiet quit.
	code, _, errs = runStdin(t, "22-18\n"+strings.Repeat("x", 70_000)+"\n", "play", "--model", "random", "--visits", "2", "--pdn", pdn)
	if code != 1 || !strings.Contains(errs, "over 64 KiB") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("play with a 70,000-byte line: exit %d, stderr %q; want a one-line error", code, errs)
	}
}

func TestAnalyzeCommand(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	code, out, errs := runCmd(t, "analyze", "--model", ckpt, "--fen", "W:WK21,31:B10,18,27", "--visits", "20")
	if code != 0 || !strings.Contains(out, "only one legal move: 31x22x13x6") {
		t.Fatalf("exit %d, stderr %q, output:\n%s", code, errs, out)
	}
	code, out, _ = runCmd(t, "analyze", "--model", ckpt, "--visits", "40", "--top", "3")
	if code != 0 || !strings.Contains(out, "Network's top moves (3 of 7 legal)") || !strings.Contains(out, "Principal variation: 1. ") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	// Without --model: the shipped model, or an error that says to give one.
	code, out, errs = runCmd(t, "analyze", "--visits", "10")
	if _, err := checkpoints.Shipped(); errors.Is(err, checkpoints.ErrNoModel) {
		if code == 0 || !strings.Contains(errs, "--model") {
			t.Errorf("analyze without --model and no shipped model: exit %d, %q", code, errs)
		}
	} else if err != nil {
		t.Errorf("the shipped model does not load: %v", err)
	} else if code != 0 || !strings.Contains(out, "shipped model") {
		t.Errorf("analyze with the shipped model: exit %d, stderr %q, output:\n%s", code, errs, out)
	}
}

// TestEngineSearchOptions: hub, play and analyze search with the standard
// first-play urgency reduction, as they always did (mcts reads a zero
// reduction as none, so these options set it).
func TestEngineSearchOptions(t *testing.T) {
	o := engineSpec(t, false).Search.Options()
	if o.FPUReduction != mcts.StandardFPUReduction || o.Parallel != 4 || !o.PassForced || o.DirichletFraction != 0 || o.PolicyTemperature != engine.PlayPolicyTemperature {
		t.Errorf("engine search options %+v", o)
	}
	if o := engineSpec(t, false, "--policy-temp", "1.25").Search.Options(); o.PolicyTemperature != 1.25 {
		t.Errorf("--policy-temp 1.25: temperature %v", o.PolicyTemperature)
	}
	for _, bad := range []string{"0", "0.05", "11", "NaN", "-1"} {
		code, _, errs := runCmd(t, "analyze", "--model", "random", "--visits", "8", "--policy-temp", bad)
		if code == 0 || !strings.Contains(errs, "--policy-temp") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("--policy-temp %s: exit %d, stderr %q; want one line naming the flag", bad, code, errs)
		}
	}
}
