package card

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dama/arena"
	"dama/checkpoints"
)

// TestShippedCard: the committed card is what its committed record
// writes, byte for byte (dama ship --rewrite-card changes nothing).
func TestShippedCard(t *testing.T) {
	dir := filepath.Join("..", "shipped")
	r, err := ReadRecord(filepath.Join(dir, checkpoints.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, checkpoints.CardFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Markdown(); got != string(want) {
		t.Errorf("the card written from %s differs from %s:\n got %q\nwant %q", checkpoints.RecordFile, checkpoints.CardFile, got, want)
	}
}

// TestPlainStrength: the card's sentence names the strongest rung scored
// at least even against (with enough games), the rung above it, and the
// search, forced moves passed included.
func TestPlainStrength(t *testing.T) {
	rung := func(name string, p arena.Pentanomial) arena.RungResult {
		return arena.RungResult{Rung: arena.Rung{Player: name}, Pairs: p}
	}
	lr := arena.LadderResult{Rungs: []arena.RungResult{
		rung("classic:5", arena.Pentanomial{0, 0, 1, 1, 8}),  // 10 pairs, 92.5%
		rung("classic:7", arena.Pentanomial{0, 1, 2, 1, 0}),  // 4 pairs, 50%: 8 games
		rung("classic:9", arena.Pentanomial{0, 0, 0, 0, 2}),  // 100%, but only 4 games
		rung("classic:11", arena.Pentanomial{1, 2, 1, 0, 0}), // 25%
	}}
	cases := []struct {
		l    Ladder
		want string
	}{
		{Ladder{Visits: 800}, "at 800 visits it scores 50% against classic:7 (8 games) and 100% against classic:9 (4 games)."},
		{Ladder{Visits: 400, PassForced: true}, "at 400 visits (forced moves passed) it scores 50% against classic:7 (8 games) and 100% against classic:9 (4 games)."},
	}
	for _, c := range cases {
		if got := plainStrength(lr, &c.l); got != c.want {
			t.Errorf("plainStrength(%+v):\n got %q\nwant %q", c.l, got, c.want)
		}
	}
	lose := arena.LadderResult{Rungs: []arena.RungResult{rung("random", arena.Pentanomial{4, 0, 0, 0, 0})}}
	if got := plainStrength(lose, &Ladder{Visits: 800}); got != "" {
		t.Errorf("no rung scored at least even, yet %q", got)
	}
}

// TestRatingsCurve: the card shows the lineage's ratings against its
// training, one row per rated ship, oldest first, with the notes their
// searches and sources call for; a ship with a ladder adds its rating.
func TestRatingsCurve(t *testing.T) {
	rec := Record{Version: Version, ModelSHA: "abc", Ratings: []Rating{
		{Run: "p1", CPUHours: 0.4, WallHours: 1.6, Games: 1256, Ladder: "l1", Visits: 800, Elo: 1236, Low: 1116, High: 1356, RatedGames: 60, Source: "card of 998d658"},
		{Run: "p2", CPUHours: 1.16, WallHours: 3.75, Games: 4256, Ladder: "l1", Visits: 800, Elo: 1681, Low: 1610, High: 1752, RatedGames: 100, Source: "card of 24113c2"},
		{Run: "p3", CPUHours: 7.94, WallHours: 8.05, Games: 44756, Ladder: "l1", Visits: 800, PassForced: true, Elo: 1950, Low: 1862, High: 2037, RatedGames: 100},
	}}
	card := rec.Markdown()
	for _, want := range []string{
		"| 0.40 | 1.60 | 1256 | p1 | +1236 [+1116, +1356], 60 games | 800 visits | " + strings.Repeat("█", 12) + " |",
		"| 7.94 | 8.05 | 44756 | p3 | +1950 [+1862, +2037], 100 games | 800 visits, forced moves passed | " + strings.Repeat("█", 20) + " |",
		"Passing forced moves adds about 76 Elo",
		"taken from the cards shipped with those models",
		"`dama ladder --model checkpoints/shipped/dama.ckpt --visits 800`", // no rating of its own: LadderVisits
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the card lacks %q:\n%s", want, card)
		}
	}
	if strings.Index(card, "| p1 |") > strings.Index(card, "| p2 |") {
		t.Error("the ratings are not oldest first")
	}
	if strings.Contains(card, "different ladders") {
		t.Error("ratings on one ladder said to be on different ones")
	}

	got := Record{ModelSHA: "def", CPUHours: 9, Games: 50000, Ratings: rec.Ratings,
		Ladder: &Ladder{Checksum: "l1", Visits: 400, Result: arena.LadderResult{Elo: 2000, Low: 1900, High: 2100, Games: 200}}}
	got.AddRating("p4")
	if n := len(got.Ratings); n != 4 || got.Ratings[3] != (Rating{Run: "p4", ModelSHA: "def", CPUHours: 9, Games: 50000, Ladder: "l1", Visits: 400, Elo: 2000, Low: 1900, High: 2100, RatedGames: 200}) {
		t.Errorf("after a rated ship: ratings %+v", got.Ratings)
	}
	got.Ratings[3].Ladder = "l2"
	if c := got.Markdown(); !strings.Contains(c, "different ladders") || !strings.Contains(c, "--visits 400`") {
		t.Errorf("ratings on two ladders, a rating at 400 visits: the card says neither:\n%s", c)
	}
}
