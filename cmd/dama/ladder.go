package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"

	"dama/arena"
	"dama/internal/atomicfile"
	"dama/internal/progress"
	"dama/player"
)

func init() {
	var o struct {
		ladder, out, players, anchor, revision string
		extend                                 string
		games, parallel, probe, span           int
		seed                                   int64
		calibrate, show, asJSON, quiet         bool
		model                                  *player.Flags
	}
	register(&command{
		name:      "ladder",
		summary:   "rate a model on the fixed ladder of reference players (anchored Elo ± 95%)",
		usage:     "--model CKPT [--visits N | --time TIME] [--pass-forced] [--hybrids LIST] [--threads N] [--games N] | show | calibrate [--players A,B,...] --out FILE | extend --players A,B,... --out FILE",
		takesArgs: true,
		verbs:     []string{"show", "calibrate", "extend"},
		help: func() string {
			return "The model searches by the Ladder default unless its flags say otherwise: " + player.LadderDefault().Describe() + ", as every run's ladder ratings (player.Ladder), so that the ratings compare.\n"
		},
		flags: func(fs *flagSet) {
			o.model = player.AddLadderFlags(fs.FlagSet)
			fs.IntVar(&o.games, "games", 200, "games in all, even; at least 2 x probe x rungs")
			fs.IntVar(&o.probe, "probe", 2, "pairs of games against every rung before the rest goes to the rungs near the model, 1..1000")
			fs.IntVar(&o.parallel, "parallel", 2*runtime.NumCPU(), "games played at once, 1..4096")
			fs.StringVar(&o.ladder, "ladder", "", "ladder file (default: the one in the repository, arena/ladder.json, built in)")
			fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
			fs.StringVar(&o.players, "players", "", "calibrate: the rungs, weakest first, comma-separated (default: the current ladder's), re-measured (each plays the --span above it) into a new ladder file at --out; extend: rungs to add above the ladder's, weakest first (e.g. classic:13,classic:15), each playing the --span rungs below it for --games games, every rating fitted again from the ladder's calibration games and the new ones")
			fs.StringVar(&o.anchor, "anchor", "random", "calibrate: the player rated 0")
			fs.IntVar(&o.span, "span", 2, "calibrate, extend: how many rungs up each rung plays, 1..10")
			fs.Int64Var(&o.seed, "seed", 1, "calibrate: seed of the openings (kept in the file for every later rating)")
			fs.StringVar(&o.out, "out", "", "calibrate, extend: the ladder file to write")
			fs.StringVar(&o.revision, "revision", "", "calibrate, extend: the project revision to record (default: the build's)")
			fs.BoolVar(&o.show, "show", false, "print the ladder's rungs and ratings")
			fs.BoolVar(&o.calibrate, "calibrate", false, "re-measure the rungs' ratings")
			fs.StringVar(&o.extend, "extend", "", "add rungs above the ladder's")
			fs.oldSpelling("show", "ladder show")
			fs.oldSpelling("calibrate", "ladder calibrate")
			fs.oldSpelling("extend", "ladder extend --players A,B,...")
			fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
			limitPlayer(fs, o.model)
			limit(fs, "games", 2, 1e6, "")
			limit(fs, "probe", 1, 1000, "")
			limit(fs, "parallel", 1, 4096, "")
			limit(fs, "span", 1, 10, "")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			env, err := o.model.Env(o.parallel, e.stderr)
			if err != nil {
				return err
			}
			verb, rest := verbOf(args)
			if len(rest) > 0 {
				return fmt.Errorf("ladder %s: unexpected argument %q", verb, rest[0])
			}
			// The old spellings of the verbs, named on stderr by the
			// flags' parse.
			for _, old := range []struct {
				on   bool
				verb string
			}{{o.show, "show"}, {o.calibrate, "calibrate"}, {o.extend != "", "extend"}} {
				switch {
				case !old.on || verb == old.verb:
				case verb == "":
					verb = old.verb
				default:
					return fmt.Errorf("ladder %s and %s: give one (extend keeps the ladder's games, calibrate plays all again)", verb, old.verb)
				}
			}
			list, flagName := o.players, "--players"
			if o.extend != "" {
				list, flagName = o.extend, "--extend"
			}
			l, err := arena.ReadLadder(o.ladder)
			if err != nil && verb != "calibrate" {
				return err
			}
			ctx, stop := e.interrupt()
			defer stop()
			switch verb {
			case "calibrate", "extend":
				if o.out == "" {
					return fmt.Errorf("ladder %s needs --out FILE (e.g. arena/ladder.json)", verb)
				}
				if verb == "extend" && list == "" {
					return errors.New("ladder extend needs --players A,B,..., the rungs to add")
				}
				if err := atomicfile.CheckWritable(o.out); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
				if o.games%2 != 0 {
					return fmt.Errorf("--games %d: want an even number (each opening is played with both colours)", o.games)
				}
				if list == "" && l == nil {
					return fmt.Errorf("ladder calibrate without --players needs a readable ladder: %w", err)
				} else if list == "" {
					list = strings.Join(l.Players(), ",")
				}
				players, err := arena.ParsePlayers(list)
				if err != nil {
					return fmt.Errorf("%s: %w", flagName, err)
				}
				if verb == "extend" { // l is read: a bad --ladder failed above
					return calibrateLadder(ctx, e, o.out, o.revision, len(l.Rungs), players, o.span, o.games, o.quiet, func(opt arena.CalibrateOptions) (*arena.Ladder, error) {
						opt.Parallel = o.parallel
						return arena.Extend(ctx, l, players, arena.ParsePlayer, opt)
					})
				}
				return calibrateLadder(ctx, e, o.out, o.revision, 0, players, o.span, o.games, o.quiet, func(opt arena.CalibrateOptions) (*arena.Ladder, error) {
					opt.Parallel, opt.Seed, opt.Anchor = o.parallel, o.seed, o.anchor
					return arena.Calibrate(ctx, players, arena.ParsePlayer, opt)
				})
			case "show":
				l.WriteTable(e.stdout)
				return nil
			}
			spec, err := o.model.Spec(e.stderr)
			if err != nil {
				return err
			}
			if spec.Model == "" && !spec.IsHub() {
				return errors.New("--model CKPT is required (or ladder show, calibrate or extend)")
			}
			if min := 2 * o.probe * len(l.Rungs); o.games < min || o.games%2 != 0 || o.games > 1_000_000 {
				return fmt.Errorf("--games %d: want an even number in %d..1000000 (%d probe pairs against each of %d rungs first)", o.games, min, o.probe, len(l.Rungs))
			}
			if t := spec.Search.Time; t > 0 {
				if _, err := arena.MoveTime(t.Seconds()); err != nil {
					return fmt.Errorf("--time %s: %w", fs.Lookup("time").Value, err) // as typed
				}
			}
			p, err := spec.Player(env)
			if err != nil {
				return err
			}
			defer closePlayer(e.stderr, p)
			bar := progress.New(barWriter(e, o.quiet), o.games, "ladder")
			res, err := arena.Climb(ctx, p, l, arena.ParsePlayer, arena.LadderOptions{
				Games: o.games, ProbePairs: o.probe, Parallel: o.parallel,
				OnGame: func(rung int, _ arena.GameResult) {
					bar.Describe("ladder: " + l.Rungs[rung].Player)
					bar.Add(1)
				},
			})
			if err != nil {
				bar.Clear() // no last line of the bar: the error is the command's line
				return err
			}
			bar.Finish()
			if o.asJSON {
				b, _ := json.MarshalIndent(res, "", "  ")
				fmt.Fprintln(e.stdout, string(b))
				fmt.Fprintln(e.stderr, spec.LadderNote())
				return nil
			}
			res.WriteTable(e.stdout)
			fmt.Fprintln(e.stdout, spec.LadderNote())
			return nil
		},
	})
}

// calibrateLadder runs a calibration (run: arena.Calibrate or
// arena.Extend, given the options with progress and the span and games
// set) of players above the below rungs kept, with a progress bar over
// the matches it plays, and writes the new ladder to out.
func calibrateLadder(ctx context.Context, e *env, out, rev string, below int, players []string, span, games int, quiet bool, run func(arena.CalibrateOptions) (*arena.Ladder, error)) error {
	if rev == "" {
		rev = buildVersion()
	}
	bar := progress.New(barWriter(e, quiet), arena.CalibrationMatches(below, len(players), span)*games, "calibrating")
	l, err := run(arena.CalibrateOptions{
		Games: games, Span: span,
		OnGame: func(arena.GameResult) { bar.Add(1) },
		OnMatch: func(m arena.MatchResult) {
			bar.Clear()
			fmt.Fprintln(e.stdout, m)
		},
	})
	if err != nil {
		bar.Clear() // no last line of the bar: the error is the command's line
		return err
	}
	bar.Finish()
	l.Revision = rev
	if err := l.Write(out); err != nil {
		return err
	}
	l.WriteTable(e.stdout)
	fmt.Fprintf(e.stdout, "wrote %s\n", out)
	return nil
}
