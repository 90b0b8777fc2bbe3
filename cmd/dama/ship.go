package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"

	"dama/arena"
	"dama/checkpoints"
	"dama/checkpoints/card"
	"dama/model"
	"dama/player"
)

func init() {
	var o struct {
		model, match string
		rewriteCard  bool
		players      *player.Flags // --visits, --pass-forced, --backend
		card.ShipOptions
	}
	register(&command{
		name:      "ship",
		summary:   "ship a trained model: checkpoint without optimizer state, ONNX export, ladder rating and model card into checkpoints/shipped",
		usage:     "--run DIR [--model CKPT] [--out DIR] [--visits N] [--pass-forced] [--ladder-games N] [--match SPEC --match-games N] [--revision REV] | rewrite-card [--out DIR]",
		takesArgs: true,
		verbs:     []string{"rewrite-card"},
		flags: func(fs *flagSet) {
			fs.StringVar(&o.Run, "run", "", "the run folder the model was trained in (its records give games, positions and CPU time)")
			fs.StringVar(&o.model, "model", "", "checkpoint to ship, one the run trained (default: the run's best)")
			o.players = player.AddFlags(fs.FlagSet, player.LadderDefault(), "visits", "pass-forced", "backend")
			for _, name := range []string{"visits", "pass-forced", "backend"} {
				fs.Lookup(name).Usage = "in the ladder and the match (the Ladder default otherwise): " + fs.Lookup(name).Usage
			}
			fs.StringVar(&o.Out, "out", checkpoints.ShippedDir, "folder to write dama.ckpt, dama.onnx, MODEL.md and model.json into")
			fs.IntVar(&o.Ladder, "ladder-games", 200, "ladder games (even; 0 = no rating)")
			fs.StringVar(&o.match, "match", "", "a reference player for a direct match too, e.g. classic:t1000")
			fs.IntVar(&o.MatchGames, "match-games", 100, "games of the direct match, even, 2..10^6")
			fs.IntVar(&o.Parallel, "parallel", 2*runtime.NumCPU(), "games played at once, 1..4096")
			fs.StringVar(&o.Revision, "revision", "", "the project revision the card names (default: the binary's, see dama version)")
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
			env, err := o.players.Env(o.Parallel, e.stderr)
			if err != nil {
				return err
			}
			verb, rest := verbOf(args)
			if len(rest) > 0 {
				return fmt.Errorf("ship rewrite-card: unexpected argument %q", rest[0])
			}
			if o.rewriteCard || verb == "rewrite-card" {
				// Write MODEL.md in --out again from its model.json (after
				// the card's layout changed, or a rating was added to the
				// record), shipping nothing.
				if err := card.Rewrite(o.Out); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "wrote %s from %s\n", filepath.Join(o.Out, checkpoints.CardFile), filepath.Join(o.Out, checkpoints.RecordFile))
				return nil
			}
			if o.Run == "" {
				return errors.New("--run DIR is required: the card's games, positions and CPU time come from the run's records")
			}
			if o.match != "" {
				if o.Opponent, err = arena.ParsePlayer(o.match); err != nil {
					return fmt.Errorf("--match: %w", err)
				}
			}
			if o.Revision == "" {
				o.Revision = buildVersion()
			}
			if err := o.Check(); err != nil {
				return err
			}
			if o.Model, err = card.ModelOfRun(o.model, o.Run); err != nil {
				return err
			}
			if o.Revision == "dev" {
				fmt.Fprintln(e.stderr, "dama ship: this binary carries no revision (built without VCS stamps); the card will say \"dev\": pass --revision")
			}
			// The model's search in the ladder and the match (its visits
			// and forced moves in the record).
			o.Player = func(ck *model.Checkpoint) (arena.Player, error) {
				return player.Spec{Model: checkpoints.ModelFile, Checkpoint: ck, Search: spec.Search}.Player(env)
			}
			o.Producer, o.Visits, o.PassForced, o.Log = buildVersion(), spec.Search.Visits, spec.Search.Pass, e.stdout
			ctx, stop := e.interrupt()
			defer stop()
			_, err = card.Ship(ctx, o.ShipOptions)
			return err
		},
	})
}
