package main

import (
	"flag"

	"dama/web"
)

func init() {
	var wf *web.Flags
	var runDirs multiFlag
	var runsDir *string
	register(&command{
		name:    "serve",
		summary: "serve a live web view of runs: their curves (overlaid) and tables, the first run's games on a board, play and analysis",
		usage:   "--run DIR [--run DIR]... | --runs DIR [--http 127.0.0.1:8080] [--http-token-file FILE] [--http-max-time TIME] [--tb DIR|auto:N]",
		flags: func(fs *flagSet) {
			runDirs = nil
			fs.Var(&runDirs, "run", "run folder to show (read only); repeat it for more runs, whose curves the page can overlay")
			runsDir = fs.String("runs", "", "a folder of run folders, each shown as with --run")
			wf = webFlags(fs, "127.0.0.1:8080")
			wf.Tables = fs.String("tb", "", "endgame tables whose verdicts the analysis board shows: a folder or auto:N")
			// The web view's flags are spelt as dama train's: --token-file
			// is the broker's token there.
			fs.renamed("addr", "http")
			fs.renamed("token-file", "http-token-file")
			fs.renamed("max-time", "http-max-time")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			runs, err := web.Runs(runDirs, *runsDir)
			if err != nil {
				return err
			}
			ctx, stop := e.terminate()
			defer stop()
			wait, err := wf.Start(ctx, e.stdout, runs[0].Dir, runs[1:]...)
			if err != nil {
				return err
			}
			return wait()
		},
	})
}

// webFlags declares the web view's flags on fs (web.AddFlags) with the
// range of --http-max-time.
func webFlags(fs *flagSet, def string) *web.Flags {
	f := web.AddFlags(fs.FlagSet, def)
	limit(fs, "http-max-time", 0.01, 600, "")
	return f
}
