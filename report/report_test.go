package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/configs"
	"dama/runfolder"
)

// synthGen describes one generation of a synthetic run.
type synthGen struct {
	games, positions, steps int
	elo, lo, hi             float64
	promoted                bool
}

var synthGens = []synthGen{
	{games: 100, positions: 7100, steps: 400, elo: 120, lo: 80, hi: 160, promoted: true},
	{games: 110, positions: 7300, steps: 400, elo: -15, lo: -55, hi: 25, promoted: false},
	{games: 120, positions: 7700, steps: 400, elo: 60, lo: 30, hi: 90, promoted: true},
	{games: 130, positions: 8100, steps: 400, elo: 5, lo: -30, hi: 40, promoted: false},
}

// writeSynthRun writes a run folder with the generations of synthGens, one
// metric line per training step, and a replayed arena line for generation 2.
func writeSynthRun(t *testing.T) *runfolder.Run {
	t.Helper()
	r, err := runfolder.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	now := start
	step, samples, total := int64(0), int64(0), 0
	best := "accepted/0000.ckpt"
	var metrics []byte // written at once: AppendJSONL syncs every line
	for i, sg := range synthGens {
		gen := i + 1
		now = now.Add(600 * time.Second) // self-play
		for s := 0; s < sg.steps; s++ {
			step++
			samples += 256
			now = now.Add(time.Second / 2)
			x := float64(step)
			b, err := json.Marshal(runfolder.MetricRecord{
				Gen: gen, Step: step, Samples: samples, LR: 1e-3,
				PolicyLoss: 2.5 * math.Exp(-x/800), ValueLoss: 1 - 0.2*math.Exp(-x/1000),
				Total: 2.5*math.Exp(-x/800) + 1 - 0.2*math.Exp(-x/1000), Time: now, SamplesPerSec: 512,
			})
			must(t, err)
			metrics = append(append(metrics, b...), '\n')
		}
		cand := fmt.Sprintf("candidates/%04d.ckpt", gen)
		arena := runfolder.ArenaRecord{
			Gen: gen, Candidate: cand, Best: best, Games: 100,
			Score: eloScore(sg.elo), Elo: sg.elo, EloLow: sg.lo, EloHigh: sg.hi,
			Verdict: "reject", Promoted: sg.promoted, Time: now,
		}
		if sg.promoted {
			arena.Verdict = "accept"
		}
		if gen == 2 { // a match cut short by a kill and played again
			early := arena
			early.Elo, early.EloLow, early.EloHigh, early.Score = 999, 900, 1100, 0.99
			must(t, r.AppendJSONL(runfolder.ArenaFile, early))
		}
		now = now.Add(300 * time.Second) // arena
		arena.Time = now
		must(t, r.AppendJSONL(runfolder.ArenaFile, arena))
		if sg.promoted {
			best = fmt.Sprintf("accepted/%04d.ckpt", gen)
		}
		total += sg.games
		b := mustJSON(t, runfolder.GenerationRecord{
			Gen: gen, Games: sg.games, Positions: sg.positions, TotalGames: total,
			Steps: sg.steps, PolicyLoss: 2 - 0.1*float64(gen), ValueLoss: 0.9 - 0.01*float64(gen),
			Candidate: cand, Score: eloScore(sg.elo), Elo: sg.elo, Promoted: sg.promoted, Best: best,
			SelfPlaySec: 600, TrainSec: 200, ArenaSec: 300, SamplesPerSec: 512, Finished: now,
		})
		must(t, runfolder.WriteFileAtomic(r.Path(runfolder.GenerationsDir, fmt.Sprintf("%04d.json", gen)), b))
	}
	must(t, runfolder.WriteFileAtomic(r.Path(runfolder.MetricsFile), metrics))
	// Files a reader must skip: a writer's temporary file, stray notes.
	must(t, os.WriteFile(r.Path(runfolder.GenerationsDir, ".0005.json.tmp-123"), []byte("{"), 0o644))
	must(t, os.WriteFile(r.Path(runfolder.GenerationsDir, "notes.txt"), []byte("x"), 0o644))
	must(t, os.WriteFile(r.Path(runfolder.GenerationsDir, "12.json"), []byte("{"), 0o644))
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	return b
}

func TestReportTable(t *testing.T) {
	r := writeSynthRun(t)
	change := runfolder.ConfigChange{Version: runfolder.ConfigChangeVersion, Generation: 3, Changes: []configs.KeyDiff{
		{Key: "selfplay.pass_forced", Old: "false", New: "true"}, {Key: "train.lr", Old: "0.001", New: "0.0005"}}}
	if err := r.AppendJSONL(runfolder.ChangesFile, change); err != nil {
		t.Fatal(err)
	}
	rep, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rep.Generations), len(synthGens); got != want {
		t.Fatalf("generations: got %d, want %d", got, want)
	}
	if got, want := rep.MetricLines, 1600; got != want {
		t.Errorf("metric lines: got %d, want %d", got, want)
	}
	if got, want := len(rep.Arena), len(synthGens); got != want {
		t.Errorf("arena matches: got %d, want %d (one per generation)", got, want)
	}
	// Chained Elo: only promoted candidates add to the best's Elo.
	sig := func(sg synthGen) float64 { return (sg.hi - sg.lo) / (2 * z95) }
	wantBest := []float64{120, 120, 180, 180}
	wantCand := []float64{120, 105, 180, 185}
	for i, g := range rep.Generations {
		if g.Match == nil {
			t.Fatalf("gen %d: no arena match joined", g.Gen)
		}
		if math.Abs(g.BestChainElo-wantBest[i]) > 1e-9 || math.Abs(g.CandidateElo-wantCand[i]) > 1e-9 {
			t.Errorf("gen %d: best %v candidate %v, want %v %v", g.Gen, g.BestChainElo, g.CandidateElo, wantBest[i], wantCand[i])
		}
	}
	wantErr := z95 * math.Hypot(sig(synthGens[0]), sig(synthGens[2]))
	if got := rep.Generations[3].BestChainErr; math.Abs(got-wantErr) > 1e-9 {
		t.Errorf("chained interval: got ±%v, want ±%v", got, wantErr)
	}
	if got := rep.Generations[1].Match.Elo; got != -15 {
		t.Errorf("gen 2 match Elo: got %v, want -15 (the replayed match replaces the first line)", got)
	}

	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	t.Log("\n" + out)
	lines := strings.Split(out, "\n")
	rowOf := func(gen int) []string {
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) > 10 && f[0] == fmt.Sprint(gen) {
				return f
			}
		}
		t.Fatalf("no table row for generation %d in\n%s", gen, out)
		return nil
	}
	for i, sg := range synthGens {
		f := rowOf(i + 1)
		row := strings.Join(f, " ")
		for _, want := range []string{
			fmt.Sprint(sg.games), fmt.Sprint(sg.positions), fmt.Sprint(sg.steps),
			fmt.Sprintf("%.1f%%", 100*eloScore(sg.elo)),
			fmt.Sprintf("%+.0f ±%.0f", sg.elo, (sg.hi-sg.lo)/2),
			fmt.Sprintf("%+.0f", wantBest[i]),
			"600.0 200.0 300.0 55/18/27",
		} {
			if !strings.Contains(row, want) {
				t.Errorf("gen %d row %q lacks %q", i+1, row, want)
			}
		}
		promoted := "no"
		if sg.promoted {
			promoted = "yes"
		}
		if f[9] != promoted {
			t.Errorf("gen %d promoted column: got %q, want %q", i+1, f[9], promoted)
		}
	}
	if !strings.Contains(rowOf(4)[10], "accepted/0003.ckpt") {
		t.Errorf("gen 4 best: got %q, want accepted/0003.ckpt", rowOf(4)[10])
	}
	for _, want := range []string{
		"4 generations completed, 2 promoted",
		"best accepted/0003.ckpt at +180 ±",
		"total: 460 games, 30200 positions, 1600 training steps",
		"time: 1h13m20s in stages (self-play 55%, train 18%, arena 27%)",
		"training: 512 samples/s (409600 samples in 13m20s)",
		"configuration changed from generation 3: selfplay.pass_forced false -> true, train.lr 0.001 -> 0.0005",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	if strings.Contains(out, "in progress") {
		t.Errorf("no generation is in progress, table says:\n%s", out)
	}
}

func TestReportPlots(t *testing.T) {
	r := writeSynthRun(t)
	rep, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	var log bytes.Buffer
	paths, err := rep.WritePlots(&log, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nwrote " + strings.Join(paths, "\nwrote ") + "\n"; log.String() != want {
		t.Errorf("said %q, want %q", log.String(), want)
	}
	want := []string{lossPlotFile, eloPlotFile, eloGamesPlotFile, arenaPlotFile}
	if len(paths) != len(want) {
		t.Fatalf("plots: got %v, want %v", paths, want)
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("plot %d: got %s, want %s", i, p, want[i])
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 400 {
			t.Errorf("%s: %dx%d, want at least 600x400", p, b.Dx(), b.Dy())
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(want) {
		t.Errorf("plots folder holds %d files, want %d (temporary files left?)", len(ents), len(want))
	}
	if out := os.Getenv("DAMA_REPORT_PLOTS"); out != "" { // for looking at them
		for _, p := range paths {
			b, _ := os.ReadFile(p)
			must(t, os.WriteFile(filepath.Join(out, filepath.Base(p)), b, 0o644))
		}
	}
}

func TestReportEmptyRun(t *testing.T) {
	r, err := runfolder.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Empty() {
		t.Fatal("a fresh run folder is not empty")
	}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "nothing to report yet") || strings.Count(got, "\n") != 1 {
		t.Errorf("empty run: got %q, want one line saying there is nothing to report yet", got)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	buf.Reset()
	paths, err := rep.WritePlots(&buf, dir)
	if err != nil || len(paths) != 0 || buf.String() != "\nno plots yet: nothing to draw\n" {
		t.Errorf("empty run plots: got %v, %v, %q; want none, no error and a line saying so", paths, err, buf.String())
	}
	if _, err := Load(&runfolder.Run{Dir: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("a missing run folder gives no error")
	}
}

func TestReportInProgress(t *testing.T) {
	r, err := runfolder.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for s := int64(1); s <= 30; s++ {
		must(t, r.AppendJSONL(runfolder.MetricsFile, runfolder.MetricRecord{Gen: 1, Step: s, Samples: 64 * s, PolicyLoss: 3, ValueLoss: 1, Total: 4, SamplesPerSec: 700}))
	}
	// A write cut off by a kill: skipped, not an error.
	f, err := os.OpenFile(r.Path(runfolder.MetricsFile), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(`{"gen":1,"step":31,"pol`)
	must(t, err)
	must(t, f.Close())

	rep, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	must(t, rep.WriteTable(&buf))
	out := buf.String()
	for _, want := range []string{"no generation completed yet", "in progress: generation 1: training, 30 steps (policy loss 3.0000, value loss 1.0000, 700 samples/s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	paths, err := rep.WritePlots(io.Discard, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || filepath.Base(paths[0]) != lossPlotFile {
		t.Errorf("plots of a run without generations: got %v, want only %s", paths, lossPlotFile)
	}
}

func TestReportCorrupt(t *testing.T) {
	t.Run("metrics line", func(t *testing.T) {
		r := writeSynthRun(t)
		b, err := os.ReadFile(r.Path(runfolder.MetricsFile))
		must(t, err)
		lines := strings.SplitAfter(string(b), "\n")
		lines[2] = "{\"gen\": 1, \"step\": oops}\n"
		must(t, os.WriteFile(r.Path(runfolder.MetricsFile), []byte(strings.Join(lines, "")), 0o644))
		_, err = Load(r)
		if err == nil || !strings.Contains(err.Error(), runfolder.MetricsFile+" line 3") {
			t.Errorf("got %v, want an error naming %s line 3", err, runfolder.MetricsFile)
		}
	})
	t.Run("arena line", func(t *testing.T) {
		r := writeSynthRun(t)
		f, err := os.OpenFile(r.Path(runfolder.ArenaFile), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("{\"gen\": \"two\"}\n")
		must(t, err)
		must(t, f.Close())
		_, err = Load(r)
		if err == nil || !strings.Contains(err.Error(), runfolder.ArenaFile+" line 6") {
			t.Errorf("got %v, want an error naming %s line 6", err, runfolder.ArenaFile)
		}
	})
	// Lines that decode but are no rating: they were drawn as ratings of
	// generation 0 (issue 47, point 5).
	for _, bad := range []string{"null", `{"gen": 3}`, `{"gen": 3, "model": "accepted/0003.ckpt", "visits": 4, "games": 4, "elo": 10, "low": 50, "high": 0}`} {
		t.Run("ladder line "+bad, func(t *testing.T) {
			r := writeSynthRun(t)
			good := `{"gen": 2, "model": "accepted/0002.ckpt", "visits": 4, "games": 4, "elo": 10, "low": -50, "high": 70}`
			must(t, os.WriteFile(r.Path(runfolder.LadderFile), []byte(good+"\n"+bad+"\n"), 0o644))
			_, err := Load(r)
			if err == nil || !strings.Contains(err.Error(), runfolder.LadderFile+" line 2") {
				t.Errorf("got %v, want an error naming %s line 2", err, runfolder.LadderFile)
			}
		})
	}
	t.Run("generation file", func(t *testing.T) {
		r := writeSynthRun(t)
		path := r.Path(runfolder.GenerationsDir, "0003.json")
		must(t, os.WriteFile(path, []byte("{\n  \"gen\": 3,\n  \"games\": ten\n}\n"), 0o644))
		_, err := Load(r)
		if err == nil || !strings.Contains(err.Error(), path+" line 3") {
			t.Errorf("got %v, want an error naming %s line 3", err, path)
		}
	})
	t.Run("generation field type", func(t *testing.T) {
		r := writeSynthRun(t)
		path := r.Path(runfolder.GenerationsDir, "0002.json")
		must(t, os.WriteFile(path, []byte("{\"gen\": 2,\n\"promoted\": \"yes\"}"), 0o644))
		_, err := Load(r)
		if err == nil || !strings.Contains(err.Error(), path+" line 2") || !strings.Contains(err.Error(), "promoted") {
			t.Errorf("got %v, want an error naming %s line 2 and the field", err, path)
		}
	})
	t.Run("generation number", func(t *testing.T) {
		r := writeSynthRun(t)
		path := r.Path(runfolder.GenerationsDir, "0004.json")
		must(t, os.WriteFile(path, []byte(`{"gen": 7}`), 0o644))
		_, err := Load(r)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "gen is 7, want 4") {
			t.Errorf("got %v, want an error naming %s and the mismatched gen", err, path)
		}
	})
}

// arena.png draws the score that promotes a candidate under the run's
// gating (issue 13, point 19).
func TestReportPromotionLine(t *testing.T) {
	r := writeSynthRun(t)
	cfg, err := configs.Load("quick", nil, []string{"arena.gating=threshold", "arena.threshold=0.97"})
	must(t, err)
	y, err := cfg.YAML()
	must(t, err)
	must(t, os.WriteFile(r.Path(runfolder.ConfigFile), y, 0o644))
	rep, err := Load(r)
	must(t, err)
	if rep.Promotion != 0.97 || !strings.Contains(rep.PromotionLabel, "97%") {
		t.Fatalf("promotion %v %q, want 0.97 from the run's configuration", rep.Promotion, rep.PromotionLabel)
	}
	p, err := rep.arenaPlot()
	must(t, err)
	if p.Y.Max < 97 {
		t.Errorf("arena plot's y range ends at %v, below the promotion line at 97%%", p.Y.Max)
	}
}

// The report of a run folder written before the report moved out of
// package train (runfolder/testdata) reads it as it did.
func TestReportSampleRun(t *testing.T) {
	rep, err := Load(&runfolder.Run{Dir: "../runfolder/testdata/run-2026-12-01"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Generations) != 1 || rep.MetricLines != 4 || rep.ArenaLines != 1 || rep.Generations[0].Match == nil || rep.Promotion != 0.55 {
		t.Errorf("report of the sample: %d generations, %d metric and %d arena lines, promotion %v", len(rep.Generations), rep.MetricLines, rep.ArenaLines, rep.Promotion)
	}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil || !strings.Contains(buf.String(), "1 generations completed, 0 promoted; best accepted/0000.ckpt") || !strings.Contains(buf.String(), "total: 4 games, 117 positions, 4 training steps") {
		t.Errorf("table: %v\n%s", err, buf.String())
	}
	paths, err := rep.WritePlots(io.Discard, t.TempDir())
	if err != nil || len(paths) == 0 {
		t.Errorf("plots %v, %v", paths, err)
	}
}

// TestReportCountsChunks: the report counts the chunks in games/ that no
// plan takes and the chunks in quarantine/ (not their .why files).
func TestReportCountsChunks(t *testing.T) {
	run, err := runfolder.Open(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(run.Path(runfolder.QuarantineDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		filepath.Join(runfolder.GamesDir, "chunk-a-000000.dgames"),
		filepath.Join(runfolder.GamesDir, "chunk-b-000000.dgames"),
		filepath.Join(runfolder.QuarantineDir, "chunk-c-000000.dgames"),
		filepath.Join(runfolder.QuarantineDir, "chunk-c-000000.dgames.why"),
		filepath.Join(runfolder.QuarantineDir, "7-chunk-d-000000.dgames"),
		filepath.Join(runfolder.QuarantineDir, "7-chunk-d-000000.dgames.why"),
	} {
		if err := os.WriteFile(run.Path(f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.WritePlan(&runfolder.Plan{Gen: 1, Chunks: []runfolder.ChunkInfo{{Name: "chunk-b-000000.dgames", Games: 1, Positions: 1}}}); err != nil {
		t.Fatal(err)
	}
	rep, err := Load(run)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Waiting != 1 || rep.Quarantined != 2 {
		t.Errorf("waiting %d, quarantined %d; want 1 and 2", rep.Waiting, rep.Quarantined)
	}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil || !strings.Contains(buf.String(), "chunks: 1 waiting for a plan in games/, 2 quarantined in quarantine/") {
		t.Errorf("table: %v\n%s", err, buf.String())
	}
}
