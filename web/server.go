// Package web serves a live view of a training run to a browser: the run
// page (generations, losses, gating matches, ladder ratings, time shares,
// the configuration and its changes, waiting and quarantined chunks),
// updated by server-sent events; the run's games (self-play chunks, and
// the gating and ladder games the trainer keeps as PDN), replayed on a
// board and downloaded as PDN; and a board to play against, or analyse
// with, the shipped model or any checkpoint of the run: a continuous
// analysis streamed as its search grows (analysis.go), a game's eval
// graph (evaluate.go), a move tree written as PDN with variations and
// games imported from PDN or FEN (boardio.go), play by a clock.
//
// The server reads the run folder only (through runfolder, report and
// selfplay). Games and checkpoints are addressed by ids the server hands
// out, never by a path from the request. Every legal move comes from
// package rules; a search is capped in visits and time and runs one at a
// time per client, an analysis one at a time per client and ends on its
// own. On a loopback address no token is needed (and the Host
// header must name a loopback host, against DNS rebinding); elsewhere every
// request must carry the token. The pages are embedded in the binary and
// load nothing from elsewhere.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"dama/runfolder"
	"dama/tb"
)

//go:embed assets
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Run is the run folder shown; it is only read.
	Run *runfolder.Run
	// More are further runs the page shows (their run pages, their curves
	// overlaid on another's); the games and play pages stay Run's.
	More []*runfolder.Run
	// Token, when set, must come with every request: as ?token=, as the
	// cookie the server sets on the first request that gives it, or as an
	// "Authorization: Bearer" header. Without it only loopback host names
	// are served.
	Token string
	// Poll is how often the watcher looks at the run folder while a run
	// page is open (default 2s); it waits longer when reading the run
	// took long, so that it never takes more than a twentieth of a core.
	Poll time.Duration
	// MaxSearch caps the time of one search (default 10s) and MaxVisits
	// its visits (default 20000).
	MaxSearch time.Duration
	MaxVisits int
	// Searches is how many searches may run at once over all clients
	// (default 2); a request past it is refused, not queued.
	Searches int
	// Streams is how many event streams may be open at once (default 64).
	Streams int
	// Tables are the endgame tables whose verdicts the analysis board
	// shows (nil: none).
	Tables *tb.Tables
	// AnalysisTime and AnalysisVisits cap one continuous analysis
	// (default 60s and 2,000,000 visits), AnalysisTreeMB its tree
	// (default 256 MB: it ends when the tree is full); Analyses is how
	// many analyses and game evaluations may run at once over all clients
	// (default 2).
	AnalysisTime   time.Duration
	AnalysisVisits int
	AnalysisTreeMB int
	Analyses       int
}

// Server is the web view's http.Handler.
type Server struct {
	opt     Options
	mux     *http.ServeMux
	runs    []*runEntry // Run first, then More
	games   *gameIndex
	matches *matchIndex
	eng     *enginePool
	ctx     context.Context
	cancel  context.CancelFunc

	mu   sync.Mutex
	busy map[string]bool // clients with a search running
	sem  chan struct{}   // searches running over all clients

	streams map[string]*stream // the analysis and evaluation streams running, by client
	asem    chan struct{}      // those streams over all clients
}

// New returns the server of opt.Run.
func New(opt Options) (*Server, error) {
	if opt.Run == nil || opt.Run.Dir == "" {
		return nil, errors.New("web: no run folder")
	}
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.MaxSearch <= 0 {
		opt.MaxSearch = 10 * time.Second
	}
	if opt.MaxVisits <= 0 {
		opt.MaxVisits = 20000
	}
	if opt.Searches <= 0 {
		opt.Searches = 2
	}
	if opt.Streams <= 0 {
		opt.Streams = 64
	}
	if opt.AnalysisTime <= 0 {
		opt.AnalysisTime = 60 * time.Second
	}
	if opt.AnalysisVisits <= 0 {
		opt.AnalysisVisits = 2_000_000
	}
	if opt.AnalysisTreeMB <= 0 {
		opt.AnalysisTreeMB = 256
	}
	if opt.Analyses <= 0 {
		opt.Analyses = 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opt: opt, mux: http.NewServeMux(), ctx: ctx, cancel: cancel,
		busy: map[string]bool{}, sem: make(chan struct{}, opt.Searches),
		streams: map[string]*stream{}, asem: make(chan struct{}, opt.Analyses),
	}
	all := append([]*runfolder.Run{opt.Run}, opt.More...)
	ids, err := runIDs(all)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("web: %w", err)
	}
	for i, r := range all {
		if err := r.Exists(); err != nil {
			cancel()
			return nil, fmt.Errorf("web: %w", err)
		}
		e := &runEntry{ID: ids[i], Name: runName(r), run: r, idx: newGameIndex(r)}
		if e.Name == "" {
			e.Name = e.ID
		}
		e.watch = newWatcher(ctx, r, e.idx, opt.Poll)
		s.runs = append(s.runs, e)
	}
	s.games = s.runs[0].idx
	s.matches = newMatchIndex(opt.Run)
	s.eng = newEnginePool(opt.Run)
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		cancel()
		return nil, err
	}
	s.mux.Handle("GET /", http.FileServerFS(static))
	s.mux.HandleFunc("GET /api/run", s.handleRun)
	s.mux.HandleFunc("GET /api/runs", s.handleRuns)
	s.mux.HandleFunc("GET /api/events", s.handleEvents)
	s.mux.HandleFunc("GET /api/games", s.handleGames)
	s.mux.HandleFunc("GET /api/game", s.handleGame)
	s.mux.HandleFunc("GET /api/game.pdn", s.handleGamePDN)
	s.mux.HandleFunc("GET /api/match.pdn", s.handleMatchPDN)
	s.mux.HandleFunc("GET /api/models", s.handleModels)
	s.mux.HandleFunc("POST /api/position", s.handlePosition)
	s.mux.HandleFunc("POST /api/engine", s.handleEngine)
	s.mux.HandleFunc("POST /api/analyze", s.handleAnalyze)
	s.mux.HandleFunc("POST /api/pdn", s.handlePDN)
	s.mux.HandleFunc("GET /api/analysis", s.handleAnalysis)
	s.mux.HandleFunc("GET /api/evaluate", s.handleEvaluate)
	s.mux.HandleFunc("POST /api/import", s.handleImport)
	return s, nil
}

// Close stops the watcher, ends the event streams and releases the
// networks.
func (s *Server) Close() {
	s.cancel()
	s.eng.close()
}

// tokenCookie is the cookie that carries the token after the first
// request.
const tokenCookie = "dama_token"

// ServeHTTP checks the token (or, without one, the loopback host) and
// serves the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
	if s.opt.Token == "" {
		if !loopbackHost(r.Host) {
			httpError(w, http.StatusForbidden, fmt.Sprintf("host %q is not a loopback name: this server has no token and serves only localhost", r.Host))
			return
		}
		s.mux.ServeHTTP(w, r)
		return
	}
	if q := r.URL.Query().Get("token"); q != "" {
		if !s.tokenOK(q) {
			httpError(w, http.StatusUnauthorized, "wrong token")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
			u := *r.URL
			v := u.Query()
			v.Del("token")
			u.RawQuery = v.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther) // the token leaves the address bar
			return
		}
		s.mux.ServeHTTP(w, r)
		return
	}
	if c, err := r.Cookie(tokenCookie); err == nil && s.tokenOK(c.Value) {
		s.mux.ServeHTTP(w, r)
		return
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(b) {
		s.mux.ServeHTTP(w, r)
		return
	}
	httpError(w, http.StatusUnauthorized, "this server needs its token: open the address it printed (with ?token=...)")
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.opt.Token)) == 1
}

// loopbackHost reports whether the Host header names this machine's
// loopback interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether the listen address addr (host:port) binds
// only the loopback interface; an empty host (all interfaces) does not.
func IsLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("address %q: want host:port, e.g. 127.0.0.1:8080", addr)
	}
	if host == "" {
		return false, nil
	}
	return loopbackHost(host), nil
}

// NewToken returns a fresh random token.
func NewToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// MinTokenLen is the shortest token accepted.
const MinTokenLen = 16

// Listen opens addr for the server. An address beyond loopback is refused
// without a token (of at least MinTokenLen characters).
func Listen(addr, token string) (net.Listener, error) {
	lb, err := IsLoopback(addr)
	if err != nil {
		return nil, err
	}
	if !lb && len(token) < MinTokenLen {
		return nil, fmt.Errorf("address %s is not loopback: the web view needs a token of at least %d characters there (--http-token-file FILE)", addr, MinTokenLen)
	}
	return net.Listen("tcp", addr)
}

// Serve serves s on ln until ctx ends, then shuts down, ending the event
// streams.
func Serve(ctx context.Context, ln net.Listener, s *Server) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.Close() // ends the event streams, so that Shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	<-errc
	return nil
}

// URL is the address a person opens for ln: with the token when there is
// one.
func URL(ln net.Listener, token string) string {
	addr := ln.Addr().String()
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			addr = net.JoinHostPort("localhost", port)
		}
	}
	u := "http://" + addr + "/"
	if token != "" {
		u += "?token=" + token
	}
	return u
}

// httpError writes a one-line plain-text error.
func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}
