// Package train runs the training pipeline of dama: the run folder, the
// replay window over self-play data, mini-batch training of the network,
// gating of each candidate in the arena, and the generation loop
// self-play -> train -> arena -> promote that survives being killed at any
// moment and resumes with the same command.
package train
