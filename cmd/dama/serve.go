package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"dama/broker"
	"dama/internal/timeflag"
	"dama/runfolder"
	"dama/web"
)

func init() {
	var wf webFlags
	var runDirs multiFlag
	var runsDir *string
	register(&command{
		name:    "serve",
		summary: "serve a live web view of runs: their curves (overlaid) and tables, the first run's games on a board, play and analysis",
		usage:   "--run DIR [--run DIR]... | --runs DIR [--http 127.0.0.1:8080] [--http-token-file FILE] [--http-max-time TIME]",
		flags: func(fs *flagSet) {
			runDirs = nil
			fs.Var(&runDirs, "run", "run folder to show (read only); repeat it for more runs, whose curves the page can overlay")
			runsDir = fs.String("runs", "", "a folder of run folders, each shown as with --run")
			wf.register(fs, "127.0.0.1:8080")
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
			wait, err := startWeb(ctx, e, &wf, runs[0].Dir, runs[1:]...)
			if err != nil {
				return err
			}
			return wait()
		},
	})
}

// webFlags are the flags of the web view, in dama serve and dama train.
type webFlags struct {
	addr      *string
	tokenFile *string
	maxTime   *time.Duration
}

// register declares the flags on fs: --http, the address (serve: def;
// train: empty for no web view), --http-token-file and --http-max-time.
func (f *webFlags) register(fs *flagSet, def string) {
	f.addr = fs.String("http", def, "HOST:PORT of the web view; beyond loopback (e.g. :8080) every request needs the token")
	f.tokenFile = fs.String("http-token-file", "", "file (mode 0600) holding the web view's token, at least 16 characters; without it an address beyond loopback gets a fresh token, printed in the URL")
	f.maxTime = timeflag.Duration(fs.FlagSet, "http-max-time", 10*time.Second, "the longest one search of the play and analysis boards may take")
	limit(fs, "http-max-time", 0.01, 600, "")
}

// startWeb serves the web view of the run folder dir (and more runs)
// until ctx ends; wait blocks until the server has stopped.
func startWeb(ctx context.Context, e *env, f *webFlags, dir string, more ...*runfolder.Run) (wait func() error, err error) {
	run := &runfolder.Run{Dir: dir}
	if err := run.Exists(); err != nil {
		return nil, err
	}
	addr := *f.addr
	loop, err := web.IsLoopback(addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	token := ""
	if *f.tokenFile != "" {
		if token, err = broker.ReadToken(*f.tokenFile); err != nil {
			return nil, err
		}
		if len(token) < web.MinTokenLen {
			return nil, fmt.Errorf("token file %s: the token has %d characters, want at least %d", *f.tokenFile, len(token), web.MinTokenLen)
		}
	} else if !loop {
		token = web.NewToken()
	}
	srv, err := web.New(web.Options{Run: run, More: more, Token: token, MaxSearch: *f.maxTime})
	if err != nil {
		return nil, err
	}
	ln, err := web.Listen(addr, token)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("--http: %w", err)
	}
	shown := dir
	for _, r := range more {
		shown += ", " + r.Dir
	}
	if *f.tokenFile != "" {
		// The token stays in its file: a log line is no place for it.
		fmt.Fprintf(e.stdout, "web view of %s: %s (with the token in %s)\n", shown, web.URL(ln, ""), *f.tokenFile)
	} else {
		fmt.Fprintf(e.stdout, "web view of %s: %s\n", shown, web.URL(ln, token))
	}
	done := make(chan error, 1)
	go func() { done <- web.Serve(ctx, ln, srv) }()
	return func() error {
		err := <-done
		if ctx.Err() != nil {
			return nil
		}
		return err
	}, nil
}
