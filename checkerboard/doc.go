// Package checkerboard is CheckerBoard's engine interface, as dama needs
// it on both sides: the board as CheckerBoard passes it (Board,
// board[x][y] with the Italian square numbering), the move it describes
// (Move, struct CBmove, with the memory layout of both), the result codes
// and the bits of info; Check, the referee that finds the legal move an
// engine's answer stands for; and Harness, a client of harness/harness.c,
// the C program that loads an engine library (dlopen, LoadLibrary) and
// calls it as CheckerBoard does, which makes any such library on Linux a
// player of matches (Player, "cb:PATH.so").
//
// The facts of the interface are in docs/engines.md#checkerboard; dama's
// own engine behind it is package cbengine.
package checkerboard
