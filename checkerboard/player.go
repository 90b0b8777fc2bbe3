package checkerboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"dama/arena"
	"dama/rules"
)

// PlayerPrefix starts a player spec of a CheckerBoard engine library.
const PlayerPrefix = "cb:"

// DefaultMoveTime is a library player's maxtime when its spec gives none.
const DefaultMoveTime = time.Second

// Player is a CheckerBoard engine library on Linux (a .so with getmove and
// enginecommand) as a player of matches: each game runs the library in a
// harness process of its own (a crash ends that game only), tells it the
// game began (CB_RESET_MOVES on its first move), gives it MoveTime a move
// and checks every answer (Check): a board that is not the position after
// a legal move, or a CBmove that does not describe it, is an error.
type Player struct {
	Library  string        // the library's path
	MoveTime time.Duration // maxtime of each move
	// Harness is the harness program; "" builds one with gcc ($CC) at the
	// first game, into a temporary folder that Close removes.
	Harness string
	Label   string // the name in results; "" for the spec
	// HangAfter is how long a move may take before the library counts as
	// hung and its harness is killed; 0: arena.HubMoveDeadline's, as an
	// external engine of the Hub protocol gets.
	HangAfter time.Duration

	mu    sync.Mutex
	built string // the folder of a harness built here
}

// ParsePlayer reads "cb:PATH[@tSECONDS]" (arena.ParseMoveTime's times:
// cb:./libdama-cb.so@t0.25); the library must exist.
func ParsePlayer(spec string) (*Player, error) {
	rest, ok := strings.CutPrefix(spec, PlayerPrefix)
	if !ok {
		return nil, fmt.Errorf("checkerboard: player %q: want %sPATH[@tSECONDS]", spec, PlayerPrefix)
	}
	p := &Player{Library: rest, MoveTime: DefaultMoveTime, Label: spec}
	if i := strings.LastIndex(rest, "@t"); i >= 0 {
		d, err := arena.ParseMoveTime(rest[i+2:])
		if err != nil {
			return nil, fmt.Errorf("checkerboard: player %q: %w", spec, err)
		}
		p.Library, p.MoveTime = rest[:i], d
	}
	if st, err := os.Stat(p.Library); err != nil || st.IsDir() {
		return nil, fmt.Errorf("checkerboard: player %q: no library file %q", spec, p.Library)
	}
	return p, nil
}

// Name implements arena.Player.
func (p *Player) Name() string {
	if p.Label != "" {
		return p.Label
	}
	return fmt.Sprintf("%s%s@t%gs", PlayerPrefix, p.Library, p.MoveTime.Seconds())
}

// harness returns the harness program, building it the first time.
func (p *Player) harness(ctx context.Context) (string, error) {
	if p.Harness != "" {
		return p.Harness, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built != "" {
		return filepath.Join(p.built, "harness"), nil
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", fmt.Errorf("checkerboard: a library player needs a C compiler to build its harness (apt-get install gcc): %w", err)
	}
	dir, err := os.MkdirTemp("", "dama-cb-harness")
	if err != nil {
		return "", err
	}
	if err := BuildHarness(ctx, cc, filepath.Join(dir, "harness"), "-ldl", "-lpthread"); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	p.built = dir
	return filepath.Join(dir, "harness"), nil
}

// Close removes a harness built by the player.
func (p *Player) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.built == "" {
		return nil
	}
	err := os.RemoveAll(p.built)
	p.built = ""
	return err
}

// Start implements arena.Player: it starts the library's harness for
// the game.
func (p *Player) Start(ctx context.Context, g *rules.Game, rng *rand.Rand) (arena.GamePlayer, error) {
	bin, err := p.harness(ctx)
	if err != nil {
		return nil, err
	}
	lib, err := filepath.Abs(p.Library)
	if err != nil {
		return nil, err
	}
	h, err := StartHarness(ctx, nil, nil, bin, lib)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	return &gamePlayer{p: p, h: h}, nil
}

// gamePlayer is a library playing one game.
type gamePlayer struct {
	p       *Player
	h       *Harness
	started bool
}

// Move implements arena.GamePlayer. What goes wrong is an arena.Fault,
// so that it loses this game only: the harness or the library ending is
// a crash, no answer within HangAfter a hang (the harness killed), an
// answer that does not read garbled, and a board or CBmove that is not a
// legal move illegal.
func (gp *gamePlayer) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	pos := g.Position()
	info := 0
	if !gp.started {
		info, gp.started = InfoResetMoves, true
	}
	type result struct {
		a   Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := gp.h.GetMove(BoardOf(pos), ColorValue(pos.Side()), gp.p.MoveTime.Seconds(), info, 0, -1)
		done <- result{a, err}
	}()
	deadline := gp.p.HangAfter
	if deadline <= 0 {
		deadline = arena.HubMoveDeadline(0, gp.p.MoveTime)
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	var r result
	select {
	case r = <-done:
	case <-timer.C:
		gp.h.kill()
		return rules.Move{}, &arena.Fault{Kind: arena.FaultHang, Detail: fmt.Sprintf("%s: no move within %v of getmove (ply %d, maxtime %gs)", gp.p.Name(), deadline, g.Ply(), gp.p.MoveTime.Seconds())}
	case <-ctx.Done():
		gp.h.kill()
		return rules.Move{}, ctx.Err()
	}
	if r.err != nil {
		kind := arena.FaultGarbled
		if errors.Is(r.err, io.ErrUnexpectedEOF) || errors.Is(r.err, os.ErrClosed) || errors.Is(r.err, syscall.EPIPE) {
			kind = arena.FaultCrash
		}
		return rules.Move{}, &arena.Fault{Kind: kind, Detail: fmt.Sprintf("%s: %v (ply %d)", gp.p.Name(), r.err, g.Ply())}
	}
	m, err := Check(pos, r.a.Board, r.a.Move)
	if err != nil {
		return rules.Move{}, &arena.Fault{Kind: arena.FaultIllegal, Detail: fmt.Sprintf("%s (str %q): %v (ply %d)", gp.p.Name(), r.a.Str, err, g.Ply())}
	}
	return m, nil
}

// Close implements arena.GamePlayer: the harness quits.
func (gp *gamePlayer) Close() { gp.h.Close() }
