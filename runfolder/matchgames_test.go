package runfolder

import (
	"os"
	"slices"
	"testing"
)

// Only files named as MatchGamesName names them are listed: no temporary
// files, other spellings of the number, folders or links.
func TestMatchGamesGens(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		MatchGamesName(ArenaGames, 3), MatchGamesName(ArenaGames, 12345), MatchGamesName(LadderGames, 5),
		"3.arena.pdn", "00003.arena.pdn", "0000.arena.pdn", "-001.arena.pdn", ".0004.arena.pdn.tmp123", "0004.arena.pdn.tmp", "0001.json",
	} {
		if err := os.WriteFile(r.Path(GenerationsDir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(r.MatchGamesPath(ArenaGames, 6), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", r.MatchGamesPath(ArenaGames, 7)); err != nil {
		t.Fatal(err)
	}
	if got := MatchGamesName(ArenaGames, 3); got != "0003.arena.pdn" {
		t.Errorf("name of generation 3's arena games %q", got)
	}
	for kind, want := range map[MatchKind][]int{ArenaGames: {3, 12345}, LadderGames: {5}} {
		got, err := r.MatchGamesGens(kind)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s games: generations %v (%v), want %v", kind, got, err, want)
		}
	}
	empty := &Run{Dir: t.TempDir() + "/none"}
	if got, err := empty.MatchGamesGens(ArenaGames); err != nil || len(got) != 0 {
		t.Errorf("a run without generations/: %v %v", got, err)
	}
}
