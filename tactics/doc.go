// Package tactics puts combinations into the search: a suite of tactical
// positions from the project's own games, proven by the reference
// engine's deep full-width search, a scorer of any player on it, and
// three MCTS-minimax hybrids (Baier and Winands, "MCTS-Minimax Hybrids",
// 2015, and their hybrids with heuristic evaluations):
//
//   - Minimax, an mcts.Oracle that proves new leaves won or lost by a
//     shallow win/loss search (minimax in the leaves; exact values that
//     override the network's, and with the solver go up the tree);
//   - Combinations, an mcts.Evaluator around the network whose shallow
//     material search with capture quiescence moves the value of a leaf
//     where a combination wins or loses material;
//   - Priors, an mcts.Evaluator around the network that raises the priors
//     of the moves a shallow material search finds winning (informed
//     priors), so that PUCT visits the sacrifices the policy gives little.
//
// All three search positions with package rules alone, without tables or
// state between calls, so each is safe for the concurrent searches of a
// match; forced moves (one legal move, mostly captures) do not count
// against their depth.
//
// The files: search.go (the shallow searches: quiescence, material
// alpha-beta, the win/loss prover), oracle.go (Minimax), evaluator.go
// (Combinations), priors.go (Priors), suite.go (the suite file), build.go
// (finding the suite's positions in games) and solve.go (scoring a player
// on a suite).
package tactics
