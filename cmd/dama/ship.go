package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"dama/arena"
	"dama/checkpoints"
	"dama/configs"
	"dama/internal/atomicfile"
	"dama/model"
	"dama/model/export"
	"dama/player"
	"dama/report"
	"dama/runfolder"
)

// maxShippedBytes bounds each shipped file: they live in the repository.
const maxShippedBytes = 10 << 20

// shipRecordVersion is the version of checkpoints/shipped/model.json.
const shipRecordVersion = 1

// shipRecord is checkpoints/shipped/model.json: the machine-readable card.
// Training may go on in pieces (dama train --init the shipped model); the
// totals add up every piece since the first.
type shipRecord struct {
	Version    int         `json:"version"`
	Created    time.Time   `json:"created"`
	Revision   string      `json:"revision"`
	ModelSHA   string      `json:"model_sha256"`
	Network    string      `json:"network"`
	Parameters int         `json:"parameters"`
	Step       int64       `json:"step"`
	Pieces     []shipPiece `json:"pieces"`
	Games      int         `json:"games"`
	Positions  int64       `json:"positions"`
	CPUHours   float64     `json:"cpu_hours"`
	WallHours  float64     `json:"wall_hours"`
	Ladder     *shipLadder `json:"ladder,omitempty"`
	Match      string      `json:"match,omitempty"` // the direct match against --match, one line
	// Ratings are the ladder ratings of the lineage, one per ship with a
	// rating, oldest first: the curve of strength against training.
	Ratings []shipRating `json:"ratings,omitempty"`
}

// addRating appends the rating of r.Ladder, made at the end of piece run,
// to r.Ratings.
func (r *shipRecord) addRating(run string) {
	l := r.Ladder
	r.Ratings = append(r.Ratings, shipRating{
		Run: run, ModelSHA: r.ModelSHA, CPUHours: r.CPUHours, WallHours: r.WallHours, Games: r.Games,
		Ladder: l.Checksum, Visits: l.Visits, PassForced: l.PassForced,
		Elo: l.Result.Elo, Low: l.Result.Low, High: l.Result.High, RatedGames: l.Result.Games,
	})
}

// shipRating is the ladder rating of the model shipped at one point of the
// lineage's training.
type shipRating struct {
	Run        string  `json:"run"` // the piece being trained
	ModelSHA   string  `json:"model_sha256"`
	CPUHours   float64 `json:"cpu_hours"` // trainer CPU-hours of the lineage up to this model
	WallHours  float64 `json:"wall_hours"`
	Games      int     `json:"games"` // self-play games up to this model
	Ladder     string  `json:"ladder"`
	Visits     int     `json:"visits"`
	PassForced bool    `json:"pass_forced,omitempty"`
	Elo        float64 `json:"elo"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	RatedGames int     `json:"rated_games"`
	// Source says where a rating recorded after the fact comes from (an
	// earlier card in the repository's history); empty when dama ship
	// measured it.
	Source string `json:"source,omitempty"`
}

// shipPiece is one training run of the lineage.
type shipPiece struct {
	Run         string `json:"run"`
	Config      string `json:"config"`      // run.name of its configuration
	Generations int    `json:"generations"` // those that trained the shipped network, the totals' span
	// RunGenerations is how many the run had when the model was shipped,
	// where more than Generations: the later ones trained on from the
	// shipped network but are not in it, so the totals leave them out.
	RunGenerations int     `json:"run_generations,omitempty"`
	Games          int     `json:"games"`
	Positions      int64   `json:"positions"`
	CPUHours       float64 `json:"cpu_hours"`
	WallHours      float64 `json:"wall_hours"` // time in its stages (self-play, training, arena)
	InitSHA        string  `json:"init_sha256,omitempty"`
}

type shipLadder struct {
	Checksum   string             `json:"ladder"`
	Visits     int                `json:"visits"`
	PassForced bool               `json:"pass_forced,omitempty"` // the search passed forced moves (dama ship --pass-forced)
	Result     arena.LadderResult `json:"result"`
}

func init() {
	var o struct {
		model, run, revision string
		rewriteCard          bool
		players              *player.Flags // --visits, --pass-forced, --backend
		shipSearch
	}
	register(&command{
		name:      "ship",
		summary:   "ship a trained model: checkpoint without optimizer state, ONNX export, ladder rating and model card into checkpoints/shipped",
		usage:     "--run DIR [--model CKPT] [--out DIR] [--visits N] [--pass-forced] [--ladder-games N] [--match SPEC --match-games N] [--revision REV] | rewrite-card [--out DIR]",
		takesArgs: true,
		flags: func(fs *flagSet) {
			fs.StringVar(&o.run, "run", "", "the run folder the model was trained in (its records give games, positions and CPU time)")
			fs.StringVar(&o.model, "model", "", "checkpoint to ship, one the run trained (default: the run's best)")
			o.players = player.AddFlags(fs.FlagSet, ladderSearch(), "visits", "pass-forced", "backend")
			for _, name := range []string{"visits", "pass-forced", "backend"} {
				fs.Lookup(name).Usage = "in the ladder and the match (the Ladder default otherwise): " + fs.Lookup(name).Usage
			}
			fs.StringVar(&o.out, "out", checkpoints.ShippedDir, "folder to write dama.ckpt, dama.onnx, MODEL.md and model.json into")
			fs.IntVar(&o.games, "ladder-games", 200, "ladder games (even; 0 = no rating)")
			fs.StringVar(&o.match, "match", "", "a reference player for a direct match too, e.g. classic:t1000")
			fs.IntVar(&o.matchGames, "match-games", 100, "games of the direct match, even, 2..10^6")
			fs.IntVar(&o.parallel, "parallel", 2*runtime.NumCPU(), "games played at once, 1..4096")
			fs.StringVar(&o.revision, "revision", "", "the project revision the card names (default: the binary's, see dama version)")
			fs.BoolVar(&o.rewriteCard, "rewrite-card", false, "write MODEL.md again")
			fs.oldSpelling("rewrite-card", "ship rewrite-card")
			limit(fs, "visits", 1, 1e6, "")
			limit(fs, "parallel", 1, 4096, "")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			spec, err := o.players.Spec(e.stderr)
			if err != nil {
				return err
			}
			if o.env, err = o.players.Env(o.parallel, e.stderr); err != nil {
				return err
			}
			o.search = spec.Search
			verb, rest := verbOf(args, "rewrite-card")
			if len(rest) > 0 {
				return fmt.Errorf("unexpected argument %q (the verb is rewrite-card)", rest[0])
			}
			if o.rewriteCard || verb == "rewrite-card" {
				// Write MODEL.md in --out again from its model.json (after
				// the card's layout changed, or a rating was added to the
				// record), shipping nothing.
				return rewriteCard(e, o.out)
			}
			if o.run == "" {
				return errors.New("--run DIR is required: the card's games, positions and CPU time come from the run's records")
			}
			if o.games < 0 || o.games%2 != 0 {
				return fmt.Errorf("--ladder-games %d: want an even number >= 0", o.games)
			}
			if o.match != "" && (o.matchGames < 2 || o.matchGames%2 != 0) {
				return fmt.Errorf("--match-games %d: want an even number >= 2", o.matchGames)
			}
			src := o.model
			if src == "" {
				src = o.run
			}
			path, err := runfolder.ResolveModel(src)
			if err != nil {
				return err
			}
			if o.model != "" {
				if err := checkModelOfRun(path, o.run); err != nil {
					return fmt.Errorf("--model %s: %w", o.model, err)
				}
			}
			rev := o.revision
			if rev == "" {
				rev = buildVersion()
			}
			if strings.ContainsAny(rev, " \t\n") {
				return fmt.Errorf("--revision %q: want one word (a commit or a version)", rev)
			}
			if rev == "dev" {
				fmt.Fprintln(e.stderr, "dama ship: this binary carries no revision (built without VCS stamps); the card will say \"dev\": pass --revision")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			return ship(ctx, e, path, o.run, rev, o.shipSearch)
		},
	})
}

// shipSearch is where dama ship writes and how it rates the model.
type shipSearch struct {
	out                  string        // the folder written
	search               player.Search // the model's in the ladder and the match (its visits and forced moves in the record)
	env                  player.Env
	games                int    // ladder games; 0: no rating
	match                string // a reference player for a direct match; "": none
	matchGames, parallel int
}

func ship(ctx context.Context, e *env, path, runDir, revision string, o shipSearch) error {
	out, visits, games, match, matchGames, parallel := o.out, o.search.Visits, o.games, o.match, o.matchGames, o.parallel
	var opponent arena.Player
	if match != "" {
		b, err := arena.ParsePlayer(match)
		if err != nil {
			return fmt.Errorf("--match: %w", err)
		}
		opponent = b
	}
	ck, err := model.Load(path)
	if err != nil {
		return err
	}
	piece, err := runPiece(runDir, path)
	if err != nil {
		return err
	}
	// The lineage: a run started from the model shipped before adds to it.
	rec := shipRecord{Version: shipRecordVersion}
	if b, err := os.ReadFile(filepath.Join(out, "model.json")); err == nil {
		var prev shipRecord
		if err := json.Unmarshal(b, &prev); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(out, "model.json"), err)
		}
		if prev.Version != shipRecordVersion {
			return fmt.Errorf("%s: version %d, want %d", filepath.Join(out, "model.json"), prev.Version, shipRecordVersion)
		}
		n := len(prev.Pieces)
		switch {
		case piece.InitSHA != "" && piece.InitSHA == prev.ModelSHA:
			rec.Pieces, rec.Ratings = prev.Pieces, prev.Ratings
		case n > 0 && piece.InitSHA != "" && prev.Pieces[n-1].Run == piece.Run && prev.Pieces[n-1].InitSHA == piece.InitSHA:
			// The last piece's run shipped again after more training: its
			// record replaces the piece's earlier one; the earlier
			// rating stays a point of the curve.
			rec.Pieces, rec.Ratings = prev.Pieces[:n-1], prev.Ratings
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rec.Pieces = append(rec.Pieces, piece)
	for _, p := range rec.Pieces {
		rec.Games += p.Games
		rec.Positions += p.Positions
		rec.CPUHours += p.CPUHours
		rec.WallHours += p.WallHours
	}

	// The model without its optimizer state nor training-only heads, and
	// its ONNX export. A run continued from it (dama train --init) keeps
	// the checkpoint's step, so its learning-rate schedule goes on without
	// a second warm-up, and restarts Adam's moments (re-estimated within a
	// few hundred steps); the workstation network's two moments would make
	// the file 12 MB, over the repository's 10 MB a file.
	slim := *ck
	slim.Opt = model.OptimizerState{}
	slim.Net = ck.Net.InferenceOnly() // training-only heads stay behind
	slim.Meta.Note = fmt.Sprintf("shipped from %s: %s", path, ck.Meta.Note)
	data, err := slim.Marshal()
	if err != nil {
		return err
	}
	if len(data) > maxShippedBytes {
		return fmt.Errorf("the model is %d bytes, over the %d allowed in the repository", len(data), maxShippedBytes)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	rec.ModelSHA = hex.EncodeToString(sum[:])
	rec.Created = time.Now().UTC()
	rec.Revision = revision
	rec.Network = ck.Net.Config.String()
	rec.Parameters = ck.Net.NumParams()
	rec.Step = ck.Step
	onnx, err := onnxBytes(&slim)
	if err != nil {
		return err
	}
	if len(onnx) > maxShippedBytes {
		return fmt.Errorf("the ONNX export is %d bytes, over the %d allowed in the repository", len(onnx), maxShippedBytes)
	}
	// The four files are written together, after the ladder and the
	// match: staged under temporary names now (so that a folder that
	// takes no file fails before any game), renamed into place at the end.
	// If one write fails, none of the shipped files is replaced.
	var files atomicfile.Batch
	defer files.Abort()
	modelPath := filepath.Join(out, checkpoints.ModelFile)
	onnxPath := filepath.Join(out, checkpoints.ONNXFile)
	recPath, cardPath := filepath.Join(out, "model.json"), filepath.Join(out, checkpoints.CardFile)
	if err := files.AddFile(modelPath, data); err != nil {
		return err
	}
	if err := files.AddFile(onnxPath, onnx); err != nil {
		return err
	}
	for _, p := range []string{recPath, cardPath} {
		if err := atomicfile.CheckWritable(p); err != nil {
			return err
		}
	}

	// player is the shipped model as the ladder and the match play it.
	shipped := func() (arena.Player, error) {
		return player.Spec{Model: checkpoints.ModelFile, Checkpoint: &slim, Search: o.search}.Player(o.env)
	}
	if games > 0 {
		l, err := arena.DefaultLadder()
		if err != nil {
			return err
		}
		p, err := shipped()
		if err != nil {
			return err
		}
		res, err := arena.Climb(ctx, p, l, arena.ParsePlayer, arena.LadderOptions{Games: games, ProbePairs: 2, Parallel: parallel})
		closePlayer(e.stderr, p)
		if err != nil {
			return err
		}
		printClimb(e.stdout, res)
		rec.Ladder = &shipLadder{Checksum: l.Checksum[:12], Visits: visits, PassForced: o.search.Pass, Result: res}
		rec.addRating(piece.Run)
	}
	if match != "" {
		p, err := shipped()
		if err != nil {
			return err
		}
		res, err := arena.Match(ctx, p, opponent, arena.MatchOptions{Games: matchGames, Parallel: parallel, Seed: 1})
		closePlayer(e.stderr, p)
		if err != nil {
			return err
		}
		rec.Match = res.String()
		fmt.Fprintln(e.stdout, rec.Match)
	}
	js, _ := json.MarshalIndent(rec, "", "  ")
	if err := files.AddFile(recPath, append(js, '\n')); err != nil {
		return err
	}
	if err := files.AddFile(cardPath, []byte(modelCard(rec))); err != nil {
		return err
	}
	if err := files.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d bytes), %s, %s and model.json\n", modelPath, len(data), onnxPath, cardPath)
	return nil
}

// rewriteCard writes the card in dir again from dir's model.json.
func rewriteCard(e *env, dir string) error {
	recPath := filepath.Join(dir, "model.json")
	b, err := os.ReadFile(recPath)
	if err != nil {
		return err
	}
	var rec shipRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w", recPath, err)
	}
	if rec.Version != shipRecordVersion {
		return fmt.Errorf("%s: version %d, want %d", recPath, rec.Version, shipRecordVersion)
	}
	cardPath := filepath.Join(dir, checkpoints.CardFile)
	if err := atomicfile.WriteFile(cardPath, []byte(modelCard(rec))); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s from %s\n", cardPath, recPath)
	return nil
}

// onnxBytes returns the ONNX export of the shipped checkpoint.
func onnxBytes(ck *model.Checkpoint) ([]byte, error) {
	net, meta, err := foldForExport(ck, checkpoints.ModelFile)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := export.WriteONNX(&b, net, export.Options{Producer: buildVersion(), Metadata: meta}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// checkModelOfRun checks that the checkpoint file path was trained in the
// run folder runDir: a checkpoint in its candidates/, accepted/ or
// rejected/ has the same content. The card's games, positions and CPU
// time come from the run's records, so they must be the model's.
func checkModelOfRun(path, runDir string) error {
	want, err := fileSum(path)
	if err != nil {
		return err
	}
	dirs := []string{runfolder.CandidatesDir, runfolder.AcceptedDir, runfolder.RejectedDir}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(runDir, d, "*.ckpt"))
		for _, f := range files {
			if got, err := fileSum(f); err == nil && got == want {
				return nil
			}
		}
	}
	return fmt.Errorf("not a model of run %s: no checkpoint in its %s/, %s/ or %s/ has the same content (ship a model with the run that trained it)", runDir, dirs[0], dirs[1], dirs[2])
}

// runPiece sums a run folder's generation records.
func runPiece(dir, modelPath string) (shipPiece, error) {
	run := &runfolder.Run{Dir: dir}
	rep, err := report.Load(run)
	if err != nil {
		return shipPiece{}, err
	}
	if len(rep.Generations) == 0 {
		return shipPiece{}, fmt.Errorf("run %s has no completed generation", dir)
	}
	abs, _ := filepath.Abs(dir)
	n := modelGeneration(dir, modelPath, rep.Generations)
	if n == 0 {
		return shipPiece{}, fmt.Errorf("%s is no candidate of a generation of run %s (its initial model?): no generation trained it, so there is nothing to ship", modelPath, dir)
	}
	gens := rep.Generations[:n]
	p := shipPiece{Run: filepath.Base(abs), Generations: len(gens), RunGenerations: len(rep.Generations)}
	if p.RunGenerations == p.Generations {
		p.RunGenerations = 0
	}
	for _, g := range gens {
		p.Games += g.Games
		p.Positions += int64(g.Positions)
		p.CPUHours += g.CPUSec / 3600
		p.WallHours += (g.SelfPlaySec + g.TrainSec + g.ArenaSec) / 3600
	}
	if cfg, err := configs.Load(run.Path(runfolder.ConfigFile), nil, nil); err == nil {
		p.Config = cfg.Run.Name
	}
	if b, err := os.ReadFile(run.Path(runfolder.InitFile)); err == nil {
		p.InitSHA, _, _ = strings.Cut(strings.TrimSpace(string(b)), " ")
	}
	return p, nil
}

// modelGeneration returns how many of a run's generations (gens, in
// order) trained the checkpoint at modelPath: those up to the one whose
// candidate it is (by content, so a copy elsewhere counts). The
// generations after it went on from it but are not in the shipped
// network. 0: it is no generation's candidate.
func modelGeneration(runDir, modelPath string, gens []report.GenerationRow) int {
	want, err := fileSum(modelPath)
	if err != nil {
		return 0
	}
	for i := len(gens) - 1; i >= 0; i-- {
		if got, err := fileSum(filepath.Join(runDir, filepath.FromSlash(gens[i].Candidate))); err == nil && got == want {
			return i + 1
		}
	}
	return 0
}

// fileSum returns the SHA-256 of the file at path.
func fileSum(path string) ([sha256.Size]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}

// modelCard writes the Markdown card of a shipped model.
func modelCard(r shipRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The shipped model\n\n")
	fmt.Fprintf(&b, "`checkpoints/shipped/dama.ckpt` (no optimizer state) and its ONNX export `dama.onnx`; `dama hub`, `play` and `analyze` use it when no `--model` is given. Written by `dama ship` on %s from revision %s.\n\n", r.Created.Format("2006-01-02"), r.Revision)
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| network | %s, %d parameters |\n", r.Network, r.Parameters)
	fmt.Fprintf(&b, "| training steps | %d |\n", r.Step)
	fmt.Fprintf(&b, "| self-play games | %d |\n", r.Games)
	fmt.Fprintf(&b, "| training positions | %d |\n", r.Positions)
	fmt.Fprintf(&b, "| trainer CPU-hours | %.2f |\n", r.CPUHours)
	fmt.Fprintf(&b, "| wall hours in training stages | %.2f |\n", r.WallHours)
	fmt.Fprintf(&b, "| sha256 of dama.ckpt | `%s` |\n", r.ModelSHA)
	if r.Ladder != nil {
		lr := r.Ladder.Result
		bound := ""
		if lr.AboveTop {
			bound = " (above the top rung: a lower bound)"
		}
		fmt.Fprintf(&b, "| ladder rating at %d visits%s | **%+.0f** [%+.0f, %+.0f] (95%%), %d games, ladder %s%s |\n", r.Ladder.Visits, passedWords(r.Ladder), lr.Elo, lr.Low, lr.High, lr.Games, r.Ladder.Checksum, bound)
	}
	fmt.Fprintf(&b, "\nTraining pieces (each a `dama train` run; a piece started with `--init` from the model shipped before continues it):\n\n")
	fmt.Fprintf(&b, "| run | config | generations | games | positions | CPU-hours | wall hours |\n|---|---|---|---|---|---|---|\n")
	later := false
	for _, p := range r.Pieces {
		gens := strconv.Itoa(p.Generations)
		if p.RunGenerations > p.Generations {
			gens, later = fmt.Sprintf("%d of %d", p.Generations, p.RunGenerations), true
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %.2f | %.2f |\n", p.Run, p.Config, gens, p.Games, p.Positions, p.CPUHours, p.WallHours)
	}
	if later {
		b.WriteString("\nA piece of \"N of M\" generations shipped the candidate of its generation N: the totals count the generations up to it, not the later ones, which trained on from it but are not in the shipped network.\n")
	}
	if r.Ladder != nil {
		lr := r.Ladder.Result
		fmt.Fprintf(&b, "\nAgainst the ladder's reference players (MCTS at %d visits%s, paired colours):\n\n", r.Ladder.Visits, passedWords(r.Ladder))
		fmt.Fprintf(&b, "| opponent | its rating | games | score | expected |\n|---|---|---|---|---|\n")
		for _, rr := range lr.Rungs {
			if n := 2 * rr.Pairs.Pairs(); n > 0 {
				fmt.Fprintf(&b, "| %s | %+.0f | %d | %.1f%% | %.1f%% |\n", rr.Rung.Player, rr.Rung.Elo, n, 100*rr.Pairs.Score(), 100*rr.Expected)
			}
		}
		if s := plainStrength(lr, r.Ladder); s != "" {
			fmt.Fprintf(&b, "\nIn plain words: %s\n", s)
		}
	}
	if r.Match != "" {
		fmt.Fprintf(&b, "\nDirect match: `%s`\n", r.Match)
	}
	b.WriteString(ratingCurve(r.Ratings))
	pass := ""
	if r.Ladder != nil && r.Ladder.PassForced {
		pass = " --pass-forced"
	}
	fmt.Fprintf(&b, "\nReproduce the rating: `dama ladder --model checkpoints/shipped/dama.ckpt --visits %d%s`.\n", visitsOf(r), pass)
	return b.String()
}

// ratingCurve is the card's table of the lineage's ladder ratings against
// its training, with a bar per rating (a block per 100 Elo) so that the
// curve shows in plain text; "" without ratings.
func ratingCurve(rs []shipRating) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nStrength against training (the ladder rating of each model shipped in the lineage; a block is 100 Elo):\n\n")
	fmt.Fprintf(&b, "| trainer CPU-hours | wall hours | self-play games | piece | ladder rating [95%%] | search | |\n|---|---|---|---|---|---|---|\n")
	ladders, passed := map[string]bool{}, map[bool]bool{}
	sourced := false
	for _, x := range rs {
		search := fmt.Sprintf("%d visits", x.Visits)
		if x.PassForced {
			search += ", forced moves passed"
		}
		fmt.Fprintf(&b, "| %.2f | %.2f | %d | %s | %+.0f [%+.0f, %+.0f], %d games | %s | %s |\n", x.CPUHours, x.WallHours, x.Games, x.Run, x.Elo, x.Low, x.High, x.RatedGames, search, strings.Repeat("█", max(0, int(math.Round(x.Elo/100)))))
		ladders[x.Ladder], passed[x.PassForced] = true, true
		sourced = sourced || x.Source != ""
	}
	if len(ladders) > 1 {
		b.WriteString("\nThe ratings were made on different ladders (checksums in model.json) and compare only roughly.\n")
	}
	if len(passed) > 1 {
		b.WriteString("\nPassing forced moves adds about 76 Elo to the same network at 800 visits (docs/experiments.md), so the rows searched so are that much higher than the network alone.\n")
	}
	if sourced {
		b.WriteString("\nRatings made before the card kept this table are taken from the cards shipped with those models (model.json names the commits).\n")
	}
	return b.String()
}

// passedWords describes the search of a rating with forced moves passed.
func passedWords(l *shipLadder) string {
	if l.PassForced {
		return " (forced moves passed)"
	}
	return ""
}

func visitsOf(r shipRecord) int {
	if r.Ladder != nil {
		return r.Ladder.Visits
	}
	return ladderSearch().Visits
}

// plainStrength says, for the strongest rung the model scored at least 50%
// against (with at least 8 games), how it did, naming the search (visits,
// forced moves passed) so the sentence can be quoted alone.
func plainStrength(lr arena.LadderResult, l *shipLadder) string {
	best := -1
	for i, rr := range lr.Rungs {
		if 2*rr.Pairs.Pairs() >= 8 && rr.Pairs.Score() >= 0.5 {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	rr := lr.Rungs[best]
	s := fmt.Sprintf("at %d visits%s it scores %.0f%% against %s (%d games)", l.Visits, passedWords(l), 100*rr.Pairs.Score(), rr.Rung.Player, 2*rr.Pairs.Pairs())
	if best+1 < len(lr.Rungs) && lr.Rungs[best+1].Pairs.Pairs() > 0 {
		up := lr.Rungs[best+1]
		s += fmt.Sprintf(" and %.0f%% against %s (%d games)", 100*up.Pairs.Score(), up.Rung.Player, 2*up.Pairs.Pairs())
	}
	return s + "."
}
