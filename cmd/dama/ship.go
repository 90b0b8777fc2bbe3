package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"dama/arena"
	"dama/checkpoints"
	"dama/checkpoints/card"
	"dama/model"
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
			o.players = player.AddFlags(fs.FlagSet, player.LadderDefault(), "visits", "pass-forced", "backend")
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
			ctx, stop := e.interrupt()
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

// ship ships the checkpoint at path, trained in runDir, into o.out, rated
// on the ladder and in a match as o says (card.Ship).
func ship(ctx context.Context, e *env, path, runDir, revision string, o shipSearch) error {
	var opponent arena.Player
	if o.match != "" {
		b, err := arena.ParsePlayer(o.match)
		if err != nil {
			return fmt.Errorf("--match: %w", err)
		}
		opponent = b
	}
	size, err := card.Ship(ctx, card.ShipOptions{
		Model: path, Run: runDir, Out: o.out, Revision: revision, Producer: buildVersion(),
		Player: func(ck *model.Checkpoint) (arena.Player, error) {
			return player.Spec{Model: checkpoints.ModelFile, Checkpoint: ck, Search: o.search}.Player(o.env)
		},
		Visits: o.search.Visits, PassForced: o.search.Pass,
		Ladder: o.games, Opponent: opponent, MatchGames: o.matchGames, Parallel: o.parallel, Log: e.stdout,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d bytes), %s, %s and %s\n", filepath.Join(o.out, checkpoints.ModelFile), size,
		filepath.Join(o.out, checkpoints.ONNXFile), filepath.Join(o.out, checkpoints.CardFile), checkpoints.RecordFile)
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
