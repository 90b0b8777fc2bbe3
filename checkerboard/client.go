package checkerboard

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// HarnessSource is harness/harness.c, the C program that loads an engine
// library and calls it as CheckerBoard does, as its standard input asks.
//
//go:embed harness/harness.c
var HarnessSource []byte

// BuildHarness compiles HarnessSource with the C compiler cc into the
// program out, with the extra arguments args (on Linux "-ldl",
// "-lpthread").
func BuildHarness(ctx context.Context, cc, out string, args ...string) error {
	src := out + ".c"
	if err := os.WriteFile(src, HarnessSource, 0o644); err != nil {
		return err
	}
	defer os.Remove(src)
	argv := append([]string{"-O2", "-o", out, src}, args...)
	if b, err := exec.CommandContext(ctx, cc, argv...).CombinedOutput(); err != nil {
		return fmt.Errorf("checkerboard: building the harness: %s %s: %v\n%s", cc, strings.Join(argv, " "), err, b)
	}
	return nil
}

// Harness is a running harness program driving one engine library.
type Harness struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	name string
}

// StartHarness runs argv: the harness and the library, or an emulator,
// the harness and the library (wine harness.exe dama-cb.dll), with env
// added to this process's environment; its standard error goes to
// stderr (nil: dropped). It returns once the harness has loaded the
// library.
func StartHarness(ctx context.Context, env []string, stderr io.Writer, argv ...string) (*Harness, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("checkerboard: %s: %w", strings.Join(argv, " "), err)
	}
	h := &Harness{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), name: filepath.Base(argv[len(argv)-1])}
	l, err := h.line()
	if err == nil && !strings.HasPrefix(l, "ready ") {
		err = fmt.Errorf("checkerboard: harness (%s): first line %q, want ready", h.name, l)
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// Close asks the harness to quit and waits for it.
func (h *Harness) Close() error {
	fmt.Fprintln(h.in, "quit")
	h.in.Close()
	return h.cmd.Wait()
}

// kill ends the harness at once (a hung library); its Close then
// returns the kill's status.
func (h *Harness) kill() {
	if h.cmd.Process != nil {
		h.cmd.Process.Kill()
	}
}

func (h *Harness) line() (string, error) {
	l, err := h.out.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the harness or the library ended
		}
		return "", fmt.Errorf("checkerboard: harness (%s): reading: %w (after %q)", h.name, err, l)
	}
	return strings.TrimRight(l, "\r\n"), nil
}

func (h *Harness) send(format string, a ...any) error {
	if _, err := fmt.Fprintf(h.in, format+"\n", a...); err != nil {
		return fmt.Errorf("checkerboard: harness (%s): writing: %w", h.name, err)
	}
	return nil
}

// text writes a board as the harness reads it: board[x][y], x outer.
func (b Board) text() string {
	var sb strings.Builder
	for x := range 8 {
		for y := range 8 {
			fmt.Fprintf(&sb, " %d", b[x][y])
		}
	}
	return sb.String()
}

// Answer is what one getmove returned, as the harness saw it.
type Answer struct {
	Result  int
	Elapsed time.Duration // the call's wall-clock time
	// Latency is the time from setting *playnow to the return; < 0 where
	// playnow was not set before the return.
	Latency time.Duration
	Board   Board  // the board after the call
	Move    Move   // the CBmove
	Str     string // the search line (line breaks as '|')
}

// numbers reads the integers of f.
func numbers(f []string) ([]int32, error) {
	out := make([]int32, len(f))
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("checkerboard: harness: %q is no integer", s)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// moveNumbers is how many numbers a CBmove is: 3 + 2·2 + 12·2·2 + 12.
const moveNumbers = 67

// readMove reads a CBmove.
func readMove(v []int32) Move {
	m := Move{Jumps: v[0], NewPiece: v[1], OldPiece: v[2], From: Coor{v[3], v[4]}, To: Coor{v[5], v[6]}}
	for i := range MaxPath {
		m.Path[i] = Coor{v[7+2*i], v[8+2*i]}
		m.Del[i] = Coor{v[31+2*i], v[32+2*i]}
		m.DelPiece[i] = v[55+i]
	}
	return m
}

// GetMove calls getmove with b, color, maxtime, info and moreinfo;
// playnow >= 0 sets *playnow that long after the call began.
func (h *Harness) GetMove(b Board, color int, maxtime float64, info, moreinfo int, playnow time.Duration) (Answer, error) {
	stop := int64(-1)
	if playnow >= 0 {
		stop = playnow.Milliseconds()
	}
	if err := h.send("getmove %d %g %d %d %d%s", color, maxtime, info, moreinfo, stop, b.text()); err != nil {
		return Answer{}, err
	}
	l, err := h.line()
	if err != nil {
		return Answer{}, err
	}
	f := strings.Fields(l)
	if len(f) != 4+64+moveNumbers || f[0] != "move" {
		return Answer{}, fmt.Errorf("checkerboard: harness (%s): %q: want move and %d numbers", h.name, l, 3+64+moveNumbers)
	}
	var a Answer
	if a.Result, err = strconv.Atoi(f[1]); err != nil {
		return Answer{}, fmt.Errorf("checkerboard: harness: result %q", f[1])
	}
	for i, d := range []*time.Duration{&a.Elapsed, &a.Latency} {
		v, err := strconv.ParseFloat(f[2+i], 64)
		if err != nil {
			return Answer{}, fmt.Errorf("checkerboard: harness: time %q", f[2+i])
		}
		*d = time.Duration(v * float64(time.Millisecond))
	}
	v, err := numbers(f[4:])
	if err != nil {
		return Answer{}, err
	}
	for i := range 64 {
		a.Board[i/8][i%8] = v[i]
	}
	a.Move = readMove(v[64:])
	s, err := h.line()
	if err != nil {
		return Answer{}, err
	}
	str, ok := strings.CutPrefix(s, "str ")
	if !ok {
		return Answer{}, fmt.Errorf("checkerboard: harness: %q, want the str line", s)
	}
	a.Str = str
	return a, nil
}

// Command calls enginecommand with cmd (one line).
func (h *Harness) Command(cmd string) (understood bool, reply string, err error) {
	if strings.ContainsAny(cmd, "\r\n") {
		return false, "", fmt.Errorf("checkerboard: command %q: more than one line", cmd)
	}
	if err := h.send("cmd %s", cmd); err != nil {
		return false, "", err
	}
	l, err := h.line()
	if err != nil {
		return false, "", err
	}
	rest, ok := strings.CutPrefix(l, "reply ")
	r, reply, _ := strings.Cut(rest, " ")
	if !ok || (r != "0" && r != "1") {
		return false, "", fmt.Errorf("checkerboard: harness: %q, want reply 0 or 1", l)
	}
	return r == "1", reply, nil
}

// IsLegal calls islegal.
func (h *Harness) IsLegal(b Board, color, from, to int) (bool, Move, error) {
	if err := h.send("islegal %d %d %d%s", color, from, to, b.text()); err != nil {
		return false, Move{}, err
	}
	l, err := h.line()
	if err != nil {
		return false, Move{}, err
	}
	f := strings.Fields(l)
	if len(f) != 2+moveNumbers || f[0] != "legal" {
		return false, Move{}, fmt.Errorf("checkerboard: harness: %q, want legal and %d numbers", l, 1+moveNumbers)
	}
	v, err := numbers(f[1:])
	if err != nil {
		return false, Move{}, err
	}
	return v[0] == 1, readMove(v[1:]), nil
}
