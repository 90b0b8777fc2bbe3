package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"dama/player"
	"dama/tactics/suite"
	"dama/tb"
)

// defaultSuite is the project's tactics suite, relative to the repository
// root.
const defaultSuite = "arena/tactics/suite.json"

func init() {
	var o struct {
		suite, players, pdn, out string
		build, verbose, add      bool
		parallel, limit, audit   int
		seed, auditNodes         int64
		opt                      suite.BuildOptions // --depth, --shallow, --screen
		env                      *player.Flags      // --backend, --tb, --clock
	}
	register(&command{
		name:      "tactics",
		summary:   "score players on the tactics suite (the fraction of combinations found), or build a suite from games",
		usage:     "[--suite FILE] --players SPEC[,SPEC...] [--parallel N] | build --out FILE [--depth D] [--shallow D] [--audit D] FILE.pdn... | audit --audit D [--suite FILE] --out FILE",
		help:      playerHelp,
		takesArgs: true,
		verbs:     []string{"build", "audit"},
		argsNote:  "players are given with --players",
		flags: func(fs *flagSet) {
			fs.StringVar(&o.suite, "suite", defaultSuite, "the suite file to score on")
			fs.StringVar(&o.players, "players", "", "players to score, comma-separated specs as for arena (shipped@800, shipped@t0.25, shipped@800+plain+mm4, classic:12)")
			fs.IntVar(&o.parallel, "parallel", 1, "positions searched at once (a timed player gets less of the machine with more); build: games examined at once")
			fs.Int64Var(&o.seed, "seed", 1, "seed of the players' randomness")
			fs.BoolVar(&o.verbose, "verbose", false, "print every position's answer")
			o.env = player.AddFlags(fs.FlagSet, player.Search{}, "backend", "tb", "clock")
			fs.Lookup("tb").Usage += "; audit: the tables the audit asks too (exact where they hold the position after a move)"
			fs.StringVar(&o.out, "out", "", "build, audit: the suite file to write")
			fs.BoolVar(&o.add, "append", false, "build: keep the positions of the suite at --out (built with the same depths) and add the new ones")
			fs.IntVar(&o.opt.ProvingDepth, "depth", 12, "build: depth of the reference engine's search that proves a position")
			fs.IntVar(&o.opt.ShallowDepth, "shallow", 3, "build: depth of the shallow search that must not see it")
			fs.IntVar(&o.opt.ScreenDepth, "screen", 8, "build: depth of the cheaper search that picks the positions worth the proving search (see suite.BuildOptions)")
			fs.IntVar(&o.limit, "limit", 0, "build: stop after this many positions (0: all)")
			fs.IntVar(&o.audit, "audit", 0, "audit (and build): the depth at which to audit the forced wins of --suite (or of the suite built): every other move a search this deep proves a win too is recorded as a slower win (Position.Wins), written to --out; 0: no audit")
			fs.Int64Var(&o.auditNodes, "audit-nodes", 1<<22, "audit: nodes each of its searches may take (a forced win proven at a shallower depth within them counts)")
			fs.BoolVar(&o.build, "build", false, "build a suite")
			fs.oldSpelling("build", "tactics build")
			fs.StringVar(&o.pdn, "pdn", "", "build: PDN files of games, comma-separated")
			fs.oldSpelling("pdn", "tactics build FILE.pdn...") // --pdn FILE is a PDN file to write elsewhere
			fs.renamed("player", "players")
			limit(fs, "parallel", 1, 256, "")
			limit(fs, "depth", 2, 40, "")
			limit(fs, "shallow", 1, 39, "")
			limit(fs, "limit", 0, 1e6, "0: all")
			limit(fs, "screen", 1, 40, "")
			limit(fs, "audit", 0, 40, "0: no audit")
			limit(fs, "audit-nodes", 1, 1e12, "")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			ctx, stop := e.interrupt()
			defer stop()
			env, err := o.env.Env(o.parallel, e.stderr)
			if err != nil {
				return err
			}
			verb, rest := verbOf(args)
			switch {
			case o.build:
				verb = "build" // the old spelling, named on stderr
			case verb == "" && o.audit > 0:
				sayOld(e.stderr, "tactics --audit D", "tactics audit --audit D")
				verb = "audit"
			}
			if o.pdn != "" {
				rest = append(rest, strings.Split(o.pdn, ",")...)
			}
			switch verb {
			case "build":
				if len(rest) == 0 || o.out == "" {
					return fmt.Errorf("tactics build needs --out FILE and the PDN files of games (tactics build --out FILE A.pdn B.pdn)")
				}
				done := func(name string, found, total int) {
					fmt.Fprintf(e.stderr, "%s: %d positions (%d in all)\n", name, found, total)
				}
				if err := suite.BuildFiles(ctx, e.stdout, rest, o.out, o.opt, suite.GamesOptions{Parallel: o.parallel, Most: o.limit, Done: done}, o.add); err != nil || o.audit == 0 {
					return err
				}
				return auditSuite(ctx, e, o.out, o.out, o.audit, o.auditNodes, o.parallel, env)
			case "audit":
				switch {
				case len(rest) > 0:
					return fmt.Errorf("audit: unexpected argument %q (the suite is --suite FILE)", rest[0])
				case o.audit == 0:
					return fmt.Errorf("tactics audit needs --audit D, the depth of its searches")
				case o.out == "":
					return fmt.Errorf("tactics audit needs --out, the suite file to write")
				case o.players != "":
					return fmt.Errorf("tactics audit writes a suite; score it with --players in another run")
				}
				return auditSuite(ctx, e, o.suite, o.out, o.audit, o.auditNodes, o.parallel, env)
			}
			if len(rest) > 0 {
				return fmt.Errorf("unexpected argument %q (the verbs are build and audit; players are given with --players)", rest[0])
			}
			if o.players == "" {
				return fmt.Errorf("--players: give at least one player spec")
			}
			s, err := suite.Read(o.suite)
			if err != nil {
				return err
			}
			for _, spec := range player.SplitSpecs(o.players) {
				if err := scoreSuite(ctx, e, s, spec, env, o.parallel, uint64(o.seed), o.verbose); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// scoreSuite scores one player, opened for env, on suite and prints the
// fraction solved.
func scoreSuite(ctx context.Context, e *env, s *suite.Suite, spec string, env player.Env, parallel int, seed uint64, verbose bool) error {
	p, err := player.NewPlayer(spec, env)
	if err != nil {
		return fmt.Errorf("--players: %w", err)
	}
	defer closePlayer(e.stderr, p)
	return suite.WriteScore(ctx, e.stdout, s, p, parallel, seed, verbose)
}

// auditSuite audits the suite at from into out (suite.AuditFile), with
// the tables of --tb.
func auditSuite(ctx context.Context, e *env, from, out string, depth int, nodes int64, parallel int, env player.Env) error {
	var tables *tb.Tables
	if env.Tables != "" {
		var err error
		if tables, err = player.OpenTables(env.Tables, e.stderr); err != nil {
			return fmt.Errorf("--tb: %w", err)
		}
	}
	return suite.AuditFile(ctx, e.stdout, from, out, depth, nodes, tables, parallel)
}
