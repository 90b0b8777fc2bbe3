// Command dama-cb is dama as a CheckerBoard engine: a library, built with
// -buildmode=c-shared into the Windows DLL (dama-cb.dll) that CheckerBoard
// loads, or a Linux libdama-cb.so with the same functions
// (scripts/build-cb builds both). It exports, as CheckerBoard's engine
// interface names them,
//
//	int getmove(int board[8][8], int color, double maxtime, char str[1024],
//	            int *playnow, int info, int moreinfo, struct CBmove *move);
//	int enginecommand(const char *command, char reply[1024]);
//	int islegal(int board[8][8], int color, int from, int to, struct CBmove *move);
//
// and hands each call to one cbengine.Engine, which keeps the network and
// the game between calls. docs/engines.md#checkerboard says how to install
// it; checkerboard/harness/harness.c drives it as CheckerBoard does
// (cbengine's TestHarness runs it).
//
// Built as a program (without -buildmode=c-shared, or without cgo) it
// only says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "dama-cb is a library for CheckerBoard: build it with scripts/build-cb (go build -buildmode=c-shared)")
	os.Exit(2)
}
