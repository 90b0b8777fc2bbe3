// Package arena plays matches between players of Italian draughts and
// judges them: the gate between a candidate model and the best one, and the
// ladder against fixed baselines.
//
// A Player starts one GamePlayer per game; Match plays each opening twice
// with colours swapped (a pair), many games at a time, and summarises the
// result as wins, draws and losses, a score, an Elo difference with a 95%
// interval and the likelihood of superiority. A sequential probability ratio
// test (SPRT) may stop a match as soon as the evidence is strong enough, or a
// fixed score threshold may decide it after all games.
//
// Statistics are computed over pairs (the pentanomial model used by
// Fishtest): each pair scores 0, 0.5, 1, 1.5 or 2 points for player A, and
// the variance of the pair score, not of single games, gives the standard
// error. With paired openings this is sharper than counting games alone,
// because the two games of a pair share the opening's bias.
//
// Baselines, by player spec: "random" (uniform over legal moves),
// "alphabeta:D" (negamax with a material evaluation, the bottom rung) and
// "classic:D", the reference engine of package arena/classic (alpha-beta
// with a table, quiescence and a hand-made evaluation; by depth, node count
// or time), the fixed yardstick. Players from checkpoints are plugged in
// through a PlayerFactory by the command line. HubPlayer plays by an
// external engine speaking the Hub protocol; what such a player does
// wrong (a crash, a hang, an illegal or garbled move) is a Fault, which
// loses the game it happened in, with its reason, rather than ending the
// match.
//
// WriteCounted keeps the games a result counts as PDN: those of dama arena
// --pdn, and the gating and ladder games a training run keeps.
package arena
