package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"dama/rules"
)

func playScript(t *testing.T, script string, opt PlayOptions) (rules.Record, string) {
	t.Helper()
	var out bytes.Buffer
	if opt.Limits == (Limits{}) {
		opt.Limits = Limits{Visits: 20}
	}
	opt.Date = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	rec, err := Play(context.Background(), Uniform{}, strings.NewReader(script), &out, opt)
	if err != nil {
		t.Fatalf("Play: %v\n%s", err, out.String())
	}
	return rec, out.String()
}

func TestPlayScript(t *testing.T) {
	rec, out := playScript(t, "help\n22-17\nhello\n22-18\nundo\nhint\n21-17\nquit\n", PlayOptions{})
	for _, want := range []string{
		"Commands:", "Legal moves: 21-17 21-18 22-18 22-19 23-19 23-20 24-20",
		`illegal move "22-17"`, `not a move or a command: "hello"`,
		"took back 2 move(s)", "hint: ", "dama plays ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(rec.Moves) != 2 || rec.Moves[0].String() != "21-17" {
		t.Fatalf("record moves %v, want 21-17 and the engine's reply", rec.Moves)
	}
	if rec.Result != rules.Ongoing {
		t.Errorf("result %v after quit, want ongoing", rec.Result)
	}
	var pdn bytes.Buffer
	if err := rules.WritePDN(&pdn, rec); err != nil {
		t.Fatal(err)
	}
	back, err := rules.ParsePDN(pdn.String())
	if err != nil || len(back) != 1 || len(back[0].Moves) != 2 {
		t.Fatalf("PDN does not read back: %v\n%s", err, pdn.String())
	}
	for _, tag := range []string{`[White "human"]`, `[Black "dama"]`, `[Termination "quit"]`, `[Date "2026.11.30"]`} {
		if !strings.Contains(pdn.String(), tag) {
			t.Errorf("PDN lacks %s:\n%s", tag, pdn.String())
		}
	}
}

func TestPlayAsBlackAndAmbiguous(t *testing.T) {
	// Black to move has two ways from 7 to 23 ... use the known white position instead,
	// with the engine playing black and the human white.
	p, err := rules.ParseFEN("W:W26:B21,13,22,14")
	if err != nil {
		t.Fatal(err)
	}
	rec, out := playScript(t, "26x10\n26x17x10\nresign\n", PlayOptions{Start: &p})
	if !strings.Contains(out, `ambiguous move "26x10"`) || !strings.Contains(out, "26x17x10 26x19x10") {
		t.Errorf("no ambiguity message:\n%s", out)
	}
	if len(rec.Moves) < 1 || rec.Moves[0].String() != "26x17x10" {
		t.Fatalf("moves %v", rec.Moves)
	}
	if rec.Result != rules.BlackWins {
		t.Errorf("result %v after white resigns, want 0-1", rec.Result)
	}

	// The human plays black: the engine opens, undo with no human move does nothing.
	rec, out = playScript(t, "undo\n", PlayOptions{Human: rules.Black})
	if !strings.Contains(out, "nothing to undo") || !strings.HasPrefix(strings.SplitN(out, "\n", 3)[2], "dama plays") {
		t.Errorf("unexpected output:\n%s", out)
	}
	if len(rec.Moves) != 1 {
		t.Errorf("%d moves recorded, want the engine's first move", len(rec.Moves))
	}
	if v, _ := rec.Tag("White"); v != "dama" {
		t.Errorf("White tag %q, want dama", v)
	}
}

func TestPlayToTheEnd(t *testing.T) {
	// White to move wins at once: 22x13 leaves Black without pieces.
	p, err := rules.ParseFEN("W:W22,K30:B18")
	if err != nil {
		t.Fatal(err)
	}
	rec, out := playScript(t, "22x13\n", PlayOptions{Start: &p})
	if rec.Result != rules.WhiteWins || !strings.Contains(out, "Game over: white wins 1-0 (no moves)") {
		t.Errorf("result %v, output:\n%s", rec.Result, out)
	}
}

// An input line over bufio.Scanner's 64 KiB is an error naming the limit,
// not a quiet quit (issue 20, item 6).
func TestPlayLongLine(t *testing.T) {
	var out bytes.Buffer
	script := "22-18\n" + strings.Repeat("x", 70_000) + "\n21-17\n"
	_, err := Play(context.Background(), Uniform{}, strings.NewReader(script), &out, PlayOptions{Limits: Limits{Visits: 2}})
	if err == nil || !strings.Contains(err.Error(), "an input line is over 64 KiB") {
		t.Errorf("Play of a 70,000-byte line: %v, want an error naming the limit", err)
	}
}
