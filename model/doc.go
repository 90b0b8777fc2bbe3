// Package model holds the policy-value network: the board encoding, the
// Gorgonia training graph, the pure-Go inference backend and checkpoint files.
package model
