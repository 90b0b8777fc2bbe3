// Package tactics puts combinations into the search: a suite of tactical
// positions from the project's own games, proven by the reference
// engine's deep full-width search, a scorer of any player on it, and two
// MCTS-minimax hybrids (Baier and Winands, "MCTS-Minimax Hybrids", 2015):
// Minimax, an mcts.Oracle that proves new leaves won or lost by a shallow
// win/loss search, and Combinations, an mcts.Evaluator around the network
// whose shallow material search with capture quiescence corrects the
// value of a leaf where a combination wins or loses material.
//
// The files: search.go (the shallow searches over rules: quiescence,
// material alpha-beta, the win/loss prover), oracle.go (Minimax),
// evaluator.go (Combinations), suite.go (the suite file), build.go
// (finding the suite's positions in games) and solve.go (scoring a
// player on a suite).
package tactics
