// Package classic is a classical draughts engine, the arena's fixed
// yardstick: iterative-deepening principal-variation alpha-beta with a
// transposition table, move ordering (table move, captures by what they
// take, killers, history), a capture quiescence that never stands pat while
// a capture is mandatory, and a hand-made evaluation of the kind strong
// draughts programs use (material, advancement with phase, back-rank guard,
// centre, runaway men, kings' mobility, endgame rules).
//
// An Engine searches one game at a time, on one goroutine. It plays by a
// fixed depth or a fixed node count, in which case a game is exactly
// reproducible from the rng seed (node counts are counted, not timed, and
// the clock is never read for a decision), or by time.
//
// Scores are in centi-men (a man is 100) from the side to move. Terminal
// positions are scored exactly by the rules, through the game's history: a
// side without a move loses (a win found at ply n scores WinScore-n), and
// threefold repetition and the 40-move rule are draws.
package classic
