package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ReadPDNFile counts the games it read and names each bad one; a file of
// no readable game, or of another game, is an error saying so.
func TestReadPDNFile(t *testing.T) {
	var out bytes.Buffer
	sample := filepath.Join("testdata", "sample.pdn")
	games, err := ReadPDNFile(&out, sample)
	if err != nil || len(games) != 3 {
		t.Fatalf("the sample: %d games, %v", len(games), err)
	}
	if want := sample + ": 3 games: 3 read, 0 failed\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mixed := write("mixed.pdn", "1. 22-18 *\n\n1. 22-17 *\n")
	out.Reset()
	games, err = ReadPDNFile(&out, mixed)
	if err != nil || len(games) != 2 || games[0].Err != nil || games[1].Err == nil {
		t.Fatalf("a good and a bad game: %v, %v", games, err)
	}
	if !strings.HasPrefix(out.String(), mixed+": 2 games: 1 read, 1 failed\n  game 2: ") {
		t.Errorf("got %q, want the count and the bad game's line", out.String())
	}
	for _, c := range []struct{ text, want string }{
		{"", "no game in the file"},
		{"1. 22-17 *\n", "none of its 1 games could be read"},
		{"[GameType \"20\"]\n1. 32-28 *\n", "is not Italian 8x8 draughts"},
	} {
		if _, err := ReadPDNFile(&out, write("c.pdn", c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := ReadPDNFile(&out, filepath.Join(dir, "none.pdn")); err == nil {
		t.Error("a missing file: no error")
	}
}

// WriteAt writes the tags, the moves up to the ply asked numbered, how
// far that is, and the diagram of the position there.
func TestRecordWriteAt(t *testing.T) {
	r := readSample(t)[0]
	if len(r.Moves) < 3 {
		t.Fatal("the sample's first game is too short")
	}
	var out bytes.Buffer
	r.WriteAt(&out, 3)
	p := r.Start.Play(r.Moves[0]).Play(r.Moves[1]).Play(r.Moves[2])
	moves := "1. " + r.Moves[0].String() + " " + r.Moves[1].String() + " 2. " + r.Moves[2].String() + " \n"
	tail := moves + "after 3 of " + strconv.Itoa(len(r.Moves)) + " plies, result " + r.Result.String() + "\n" + p.Diagram()
	got := out.String()
	if !strings.HasSuffix(got, tail) {
		t.Errorf("got\n%s\nwant it to end\n%s", got, tail)
	}
	if len(r.Tags) > 0 && !strings.HasPrefix(got, "["+r.Tags[0].Name+" ") {
		t.Errorf("got %q, want the tags first", got)
	}
	out.Reset()
	r.WriteAt(&out, 0)
	if want := "\nafter 0 of " + strconv.Itoa(len(r.Moves)) + " plies, result " + r.Result.String() + "\n" + r.Start.Diagram(); !strings.HasSuffix(out.String(), want) {
		t.Errorf("ply 0: got\n%s\nwant it to end\n%s", out.String(), want)
	}
}
