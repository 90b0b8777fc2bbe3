package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"dama/arena"
	"dama/checkpoints"
	"dama/checkpoints/card"
	"dama/model"
	"dama/model/export"
	"dama/player"
	"dama/runfolder"
)

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
				if err := card.CheckModelOfRun(path, o.run); err != nil {
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

// ship ships the checkpoint at path, trained in runDir, into o.out: the
// slimmed checkpoint and its ONNX export, rated on the ladder and in a
// match as o says, with the record and card of package checkpoints/card.
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
	piece, err := card.RunPiece(runDir, path)
	if err != nil {
		return err
	}
	// The lineage: a run started from the model shipped before adds to it.
	rec, err := card.NewRecord(out, piece)
	if err != nil {
		return err
	}

	// The model without its optimizer state, and its ONNX export. A run continued from it (dama train --init) keeps
	// the checkpoint's step, so its learning-rate schedule goes on without
	// a second warm-up, and restarts Adam's moments (re-estimated within a
	// few hundred steps); the workstation network's two moments would make
	// the file 12 MB, over the repository's 10 MB a file.
	slim := *ck
	slim.Opt = model.OptimizerState{}
	slim.Meta.Note = fmt.Sprintf("shipped from %s: %s", path, ck.Meta.Note)
	data, err := slim.Marshal()
	if err != nil {
		return err
	}
	rec.SetModel(ck, data, revision)
	onnx, err := onnxBytes(&slim)
	if err != nil {
		return err
	}
	// The four files are written together, after the ladder and the
	// match: staged now (so that a folder that takes no file fails before
	// any game), renamed into place at the end, all or none.
	files, err := card.Stage(out, data, onnx)
	if err != nil {
		return err
	}
	defer files.Abort()

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
		res.WriteTable(e.stdout)
		rec.Ladder = &card.Ladder{Checksum: l.Checksum[:12], Visits: visits, PassForced: o.search.Pass, Result: res}
		rec.AddRating(piece.Run)
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
	if err := files.Commit(rec); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d bytes), %s, %s and %s\n", filepath.Join(out, checkpoints.ModelFile), len(data),
		filepath.Join(out, checkpoints.ONNXFile), filepath.Join(out, checkpoints.CardFile), checkpoints.RecordFile)
	return nil
}

// rewriteCard writes the card in dir again from dir's model.json.
func rewriteCard(e *env, dir string) error {
	if err := card.Rewrite(dir); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s from %s\n", filepath.Join(dir, checkpoints.CardFile), filepath.Join(dir, checkpoints.RecordFile))
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
