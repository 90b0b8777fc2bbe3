// Package cbengine is dama's engine behind CheckerBoard's engine
// interface (the Windows draughts GUI's engine DLLs; the facts are in
// docs/engines.md#checkerboard): getmove on a board of package
// checkerboard (board[x][y], the Italian square numbering) answered with
// the board after its move and the CBmove that describes it, the result
// codes, the time CheckerBoard gives (maxtime, an incremental clock in
// info and moreinfo, playnow), and the engine's own options through
// enginecommand.
//
// It has no cgo: cmd/dama-cb exports getmove, enginecommand and islegal
// as C functions and hands them to an Engine, on checkerboard.Board and
// Move, which have the memory layout of CheckerBoard's int board[8][8]
// and struct CBmove.
// An Engine searches as dama hub does (player.Engine: the shipped model,
// the engine's search and time management) and keeps its state between
// calls: the network, loaded once, and the game so far, for repetitions
// and the 40-move rule.
package cbengine
