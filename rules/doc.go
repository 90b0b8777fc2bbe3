// Package rules implements Italian draughts as regulated by the Federazione
// Italiana Dama (FID): the board and its numbering, positions, exact legal
// move generation with the FID capture priorities, FID move notation, PDN
// FEN positions and PDN game records, and a Game type that carries the
// history needed for repetition and the 40-move rule.
//
// Squares are numbered 1..32 row by row from Black's back row: with White at
// the bottom, square 1 is a8, 4 is g8, 5 is b7, 29 is b1 and 32 is h1.
// White moves towards lower numbers.
//
// A Position is a small comparable value (bitboards and the side to move);
// Play returns the successor (copy-make). Legal writes into a caller-owned
// slice and does not allocate when its capacity is at least MaxMoves.
//
// Internally the 32 playable squares are laid out on 36 bits of a uint64
// with a "ghost" square after every second row, so that every diagonal step
// is a shift by 4 or 5 and every jump a shift by 8 or 10.
package rules
