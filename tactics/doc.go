// Package tactics puts combinations into the search: the MCTS-minimax
// hybrids (Baier and Winands, "MCTS-Minimax Hybrids", 2015, and their
// hybrids with heuristic evaluations) that an MCTS runs with, in
// self-play as in play: chosen by name with ParseHybrids, put into a
// search's options with Hybrids.Apply. There are four:
//
//   - Minimax, an mcts.Oracle that proves new leaves won or lost by a
//     shallow win/loss search (minimax in the leaves; exact values that
//     override the network's, and with the solver go up the tree);
//   - Combinations, an mcts.Evaluator around the network whose shallow
//     material search with capture quiescence moves the value of a leaf
//     where a combination wins or loses material;
//   - Priors, an mcts.Evaluator around the network that raises the priors
//     of the moves a shallow material search finds winning (informed
//     priors), so that PUCT visits the sacrifices the policy gives little;
//   - Verifier, an mcts.MoveCheck that verifies the move the tree chose
//     with the reference engine's full-width search (package
//     arena/classic) and plays instead one a man better (minimax at the
//     root).
//
// The first three search positions with package rules alone, without
// tables or state between calls, so each is safe for the concurrent
// searches of a match; forced moves (one legal move, mostly captures) do
// not count against their depth.
//
// The tactics suite, the positions these hybrids are measured on, is
// package tactics/suite: it scores any arena.Player, so it links the
// arena and the engine, which this package does not (a deps test in
// selfplay holds that).
//
// The files: search.go (the shallow searches: quiescence, material
// alpha-beta, the win/loss prover), oracle.go (Minimax), evaluator.go
// (Combinations), priors.go (Priors), batch.go (batched evaluation
// through Combinations and Priors), verify.go (Verifier) and hybrids.go
// (choosing them by name).
package tactics
