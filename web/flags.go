package web

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"dama/internal/timeflag"
	"dama/internal/tokenfile"
	"dama/player"
	"dama/runfolder"
)

// Flags are the web view's flags, in dama serve and dama train.
type Flags struct {
	Addr      *string        // --http: HOST:PORT; "" for no web view
	TokenFile *string        // --http-token-file
	MaxTime   *time.Duration // --http-max-time: the longest search of the boards
	Tables    *string        // serve's --tb: the tables of the analysis board; nil for none
}

// AddFlags declares the web view's flags on fs: --http (default def;
// dama train's is empty, for no web view), --http-token-file and
// --http-max-time.
func AddFlags(fs *flag.FlagSet, def string) *Flags {
	return &Flags{
		Addr:      fs.String("http", def, "HOST:PORT of the web view; beyond loopback (e.g. :8080) every request needs the token"),
		TokenFile: fs.String("http-token-file", "", "file (mode 0600) holding the web view's token, at least 16 characters; without it an address beyond loopback gets a fresh token, printed in the URL"),
		MaxTime:   timeflag.Duration(fs, "http-max-time", 10*time.Second, "the longest one search of the play and analysis boards may take"),
	}
}

// Start serves the web view of the run folder dir (and more runs) until
// ctx ends, and prints its address on out (never the token of a token
// file); wait blocks until the server has stopped.
func (f *Flags) Start(ctx context.Context, out io.Writer, dir string, more ...*runfolder.Run) (wait func() error, err error) {
	run := &runfolder.Run{Dir: dir}
	if err := run.Exists(); err != nil {
		return nil, err
	}
	addr := *f.Addr
	loop, err := IsLoopback(addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	token := ""
	if *f.TokenFile != "" {
		if token, err = tokenfile.Read(*f.TokenFile); err != nil {
			return nil, err
		}
		if len(token) < MinTokenLen {
			return nil, fmt.Errorf("token file %s: the token has %d characters, want at least %d", *f.TokenFile, len(token), MinTokenLen)
		}
	} else if !loop {
		token = NewToken()
	}
	opt := Options{Run: run, More: more, Token: token, MaxSearch: *f.MaxTime}
	if f.Tables != nil && *f.Tables != "" {
		if opt.Tables, err = player.OpenTables(*f.Tables, out); err != nil {
			return nil, fmt.Errorf("--tb: %w", err)
		}
	}
	srv, err := New(opt)
	if err != nil {
		return nil, err
	}
	ln, err := Listen(addr, token)
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("--http: %w", err)
	}
	shown := dir
	for _, r := range more {
		shown += ", " + r.Dir
	}
	if *f.TokenFile != "" {
		fmt.Fprintf(out, "web view of %s: %s (with the token in %s)\n", shown, URL(ln, ""), *f.TokenFile)
	} else {
		fmt.Fprintf(out, "web view of %s: %s\n", shown, URL(ln, token))
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, srv) }()
	return func() error {
		err := <-done
		if ctx.Err() != nil {
			return nil
		}
		return err
	}, nil
}
