package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"dama/arena"
	"dama/internal/atomicfile"
	"dama/internal/progress"
	"dama/player"
	"dama/rules"
)

// splitList splits a comma-separated list, "" into none.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func init() {
	var o arenaOptions
	register(&command{
		name:      "arena",
		summary:   "play a match between two players and judge it (Elo, LOS, SPRT)",
		usage:     "--a SPEC --b SPEC [--games N] [--parallel N] [--seed N] [--openings-plies N] [--sprt ELO0,ELO1[,ALPHA,BETA]] [--pdn FILE] | judge FILE...",
		takesArgs: true,
		verbs:     []string{"judge"},
		argsNote:  "players are given with --a and --b",
		help:      playerHelp,
		flags:     func(fs *flagSet) { arenaFlags(fs, &o) },
		run: func(e *env, _ *flag.FlagSet, args []string) error {
			verb, rest := verbOf(args)
			switch {
			case verb == "judge":
				o.judge = strings.Join(append(rest, splitList(o.judge)...), ",")
				if o.judge == "" {
					return errors.New("arena judge needs the PDN files of the matches (arena --pdn FILE wrote them)")
				}
			}
			return runArena(e, o)
		},
	})
}

// arenaOptions are the flags of dama arena.
type arenaOptions struct {
	a, b, pdn, judge string
	quiet            bool
	match            *arena.MatchFlags
	players          *player.Flags // --backend, --tb, --clock
}

// arenaFlags declares the flags of dama arena on fs, into o.
func arenaFlags(fs *flagSet, o *arenaOptions) {
	fs.StringVar(&o.a, "a", "", "player A: random, alphabeta:DEPTH, classic:DEPTH, classic:nNODES, classic:tSECONDS (classic:t0.25; classic:tMS with an integer: milliseconds), or a network PATH[@VISITS] or PATH@tSECONDS: a checkpoint file, a run folder or shipped (the model shipped in the binary), searched as dama hub searches (the Engine default: "+player.Engine().Describe()+") unless its suffixes say otherwise (+plain: plain PUCT), with @VISITS visits a move or tSECONDS a move (shipped@t0.25); the suffixes are listed below; or an external engine speaking the Hub protocol, hub[@VISITS|@tSECONDS]:COMMAND")
	fs.StringVar(&o.b, "b", "", "player B, the reference A is judged against")
	o.match = arena.AddMatchFlags(fs.FlagSet)
	fs.StringVar(&o.pdn, "pdn", "", "write the counted games to this PDN file")
	fs.StringVar(&o.judge, "judge", "", "judge again the matches of these files")
	fs.oldSpelling("judge", "arena judge FILE...")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	o.players = player.AddFlags(fs.FlagSet, player.Search{}, "backend", "tb", "clock")
	limit(fs, "games", 2, 1e7, "")
	limit(fs, "parallel", 1, 4096, "")
	limit(fs, "openings-plies", 0, 200, "")
	limit(fs, "max-plies", 1, 100000, "")
	limit(fs, "threshold", 0, 1, "0: none")
}

// runArena plays the match the flags o ask for, or judges the games of
// the files of arena judge (o.judge): each match and, with several,
// pooled into one result (the same two players in each).
func runArena(e *env, o arenaOptions) error {
	env, err := o.players.Env(o.match.Parallel, e.stderr)
	if err != nil {
		return err
	}
	if o.judge != "" {
		if o.a != "" || o.b != "" {
			return errors.New("arena judge takes its players from the files: give no --a or --b")
		}
		return arena.JudgeFiles(e.stdout, strings.Split(o.judge, ","))
	}
	if o.a == "" || o.b == "" {
		return errors.New("both --a and --b are required, e.g. --a alphabeta:4 --b random")
	}
	opts, err := o.match.Options()
	if err != nil { // before any output
		return err
	}
	if o.pdn != "" {
		if err := atomicfile.CheckWritable(o.pdn); err != nil {
			return fmt.Errorf("--pdn: %w", err)
		}
	}
	a, err := player.NewPlayer(o.a, env)
	if err != nil {
		return fmt.Errorf("--a: %w", err)
	}
	defer closePlayer(e.stderr, a)
	b, err := player.NewPlayer(o.b, env)
	if err != nil {
		return fmt.Errorf("--b: %w", err)
	}
	defer closePlayer(e.stderr, b)

	bar := progress.New(barWriter(e, o.quiet), max(opts.Games, 0), a.Name()+" vs "+b.Name())
	var tally arena.Tally // the games the result counts: whole pairs
	var games []arena.GameResult
	opts.OnGame = func(g arena.GameResult) {
		if o.pdn != "" {
			games = append(games, g)
		}
		tally.Add(g)
		bar.Describe(fmt.Sprintf("%s vs %s %s", a.Name(), b.Name(), tally))
		bar.Add(1)
	}

	ctx, stop := e.interrupt()
	defer stop()
	res, err := arena.Match(ctx, a, b, opts)
	bar.Finish()
	if err != nil {
		if ctx.Err() != nil && res.Games() > 0 {
			// Interrupted: the whole pairs finished so far still count,
			// and --pdn keeps them.
			fmt.Fprintf(e.stdout, "interrupted after %d counted games: %s\n", res.Games(), res)
			if o.pdn != "" {
				if werr := writeArenaPDN(o.pdn, games, res); werr != nil {
					return werr
				}
				fmt.Fprintf(e.stdout, "the %d counted games written to %s\n", res.Games(), o.pdn)
			}
		}
		return err
	}
	if o.pdn != "" {
		if err := writeArenaPDN(o.pdn, games, res); err != nil {
			return err
		}
	}
	fmt.Fprintln(e.stdout, res)
	return nil
}

// writeArenaPDN writes the games the result counts (whole pairs, in game
// order) to path, through a temporary file renamed into place.
func writeArenaPDN(path string, games []arena.GameResult, res arena.MatchResult) error {
	err := arena.WriteCounted(path, games, res.Games(),
		rules.Tag{Name: "Event", Value: "dama arena: " + res.A + " vs " + res.B}, rules.Tag{Name: "Site", Value: "dama"})
	if err != nil {
		return fmt.Errorf("--pdn: %w", err)
	}
	return nil
}

// playerHelp ends the help of the commands that take player specs: the
// suffixes of a network player, from the one table of them.
func playerHelp() string {
	return "a network player: " + player.Syntax() + "; the suffixes:\n" + player.SuffixHelp()
}

// closePlayer releases a player that holds resources.
func closePlayer(w io.Writer, p arena.Player) {
	if err := arena.Close(p); err != nil {
		fmt.Fprintf(w, "dama arena: closing %s: %v\n", p.Name(), err)
	}
}
