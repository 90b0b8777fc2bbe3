package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"dama/broker"
	"dama/player"
	"dama/runfolder"
	"dama/web"
)

func init() {
	var wf webFlags
	var runDir *string
	register(&command{
		name:    "serve",
		summary: "serve a live web view of a run: its curves and tables, its games on a board, play and analysis",
		usage:   "--run DIR [--http 127.0.0.1:8080] [--http-token-file FILE] [--http-max-time SECONDS] [--tb DIR|auto:N]",
		flags: func(fs *flagSet) {
			runDir = fs.String("run", "", "run folder to show (read only)")
			wf.tables = fs.String("tb", "", "endgame tables whose verdicts the analysis board shows: a folder or auto:N")
			wf.register(fs, "127.0.0.1:8080")
			// The web view's flags are spelt as dama train's: --token-file
			// is the broker's token there.
			fs.renamed("addr", "http")
			fs.renamed("token-file", "http-token-file")
			fs.renamed("max-time", "http-max-time")
		},
		run: func(e *env, fs *flag.FlagSet, args []string) error {
			if *runDir == "" {
				return fmt.Errorf("missing --run DIR (usage: dama serve --run DIR [--http 127.0.0.1:8080])")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			wait, err := startWeb(ctx, e, &wf, *runDir)
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
	maxTime   *float64
	tables    *string // serve's --tb; nil for train
}

// register declares the flags on fs: --http, the address (serve: def;
// train: empty for no web view), --http-token-file and --http-max-time.
func (f *webFlags) register(fs *flagSet, def string) {
	f.addr = fs.String("http", def, "HOST:PORT of the web view; beyond loopback (e.g. :8080) every request needs the token")
	f.tokenFile = fs.String("http-token-file", "", "file (mode 0600) holding the web view's token, at least 16 characters; without it an address beyond loopback gets a fresh token, printed in the URL")
	f.maxTime = fs.Float64("http-max-time", 10, "seconds one search of the play and analysis boards may take at most")
	limit(fs, "http-max-time", 0.01, 600, "")
}

// startWeb serves the web view of the run folder dir until ctx ends; wait
// blocks until the server has stopped.
func startWeb(ctx context.Context, e *env, f *webFlags, dir string) (wait func() error, err error) {
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
	opt := web.Options{Run: run, Token: token, MaxSearch: secondsDuration(*f.maxTime)}
	if f.tables != nil && *f.tables != "" {
		if opt.Tables, err = player.OpenTables(*f.tables, e.stdout); err != nil {
			return nil, fmt.Errorf("--tb: %w", err)
		}
	}
	srv, err := web.New(opt)
	if err != nil {
		return nil, err
	}
	ln, err := web.Listen(addr, token)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("--http: %w", err)
	}
	if *f.tokenFile != "" {
		// The token stays in its file: a log line is no place for it.
		fmt.Fprintf(e.stdout, "web view of %s: %s (with the token in %s)\n", dir, web.URL(ln, ""), *f.tokenFile)
	} else {
		fmt.Fprintf(e.stdout, "web view of %s: %s\n", dir, web.URL(ln, token))
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
