package checkerboard

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dama/arena"
	"dama/rules"
)

// faultySource is a CheckerBoard library that misbehaves as
// DAMA_CB_FAULT says: crash (abort), hang (sleeps), or anything else:
// an answer that moves nothing (the board left as it was).
const faultySource = `
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
struct coor { int x, y; };
struct CBmove { int jumps, newpiece, oldpiece; struct coor from, to; struct coor path[12]; struct coor del[12]; int delpiece[12]; };
int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow, int info, int moreinfo, struct CBmove *move) {
	const char *f = getenv("DAMA_CB_FAULT");
	if (f && !strcmp(f, "crash")) abort();
	if (f && !strcmp(f, "hang")) for (;;) sleep(1);
	memset(move, 0, sizeof *move);
	strcpy(str, "no move made");
	return 0;
}
int enginecommand(const char *command, char reply[1024]) { strcpy(reply, "faulty"); return 1; }
`

// TestPlayerFaults: a library that crashes, hangs or answers with no
// legal move loses the game with an arena.Fault of that kind (so a match
// goes on), its harness ended.
func TestPlayerFaults(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		if os.Getenv("DAMA_EXPECT_CC") != "" {
			t.Fatal("DAMA_EXPECT_CC is set and there is no gcc:", err)
		}
		t.Skip("no gcc to build the harness and the library:", err)
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "faulty.c"), filepath.Join(dir, "libfaulty.so")
	if err := os.WriteFile(src, []byte(faultySource), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("building the faulty library: %v\n%s", err, b)
	}
	p, err := ParsePlayer("cb:" + lib + "@t0.05")
	if err != nil {
		t.Fatal(err)
	}
	p.HangAfter = 500 * time.Millisecond
	defer p.Close()
	for _, c := range []struct{ fault, kind, detail string }{
		{"crash", arena.FaultCrash, "reading"},
		{"hang", arena.FaultHang, "no move within 500ms"},
		{"illegal", arena.FaultIllegal, "no move made"},
	} {
		t.Run(c.fault, func(t *testing.T) {
			t.Setenv("DAMA_CB_FAULT", c.fault)
			g := rules.NewGame(rules.Start())
			gp, err := p.Start(context.Background(), g, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			defer gp.Close()
			_, err = gp.Move(context.Background(), g)
			f, ok := arena.AsFault(err)
			if !ok {
				t.Fatalf("error %v, want a fault of kind %s", err, c.kind)
			}
			if f.Kind != c.kind || !strings.Contains(f.Detail, c.detail) || !strings.Contains(f.Detail, "ply 0") {
				t.Errorf("fault %q, want kind %s with %q and the ply", f, c.kind, c.detail)
			}
		})
	}
}
