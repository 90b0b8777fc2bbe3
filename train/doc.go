// Package train runs the training pipeline of dama: the replay window over
// self-play data, mini-batch training of the network, gating of each
// candidate in the arena, the ladder, self-play workers, and the
// generation loop self-play -> train -> arena -> promote that survives
// being killed at any moment and resumes with the same command. It keeps
// its state in a run folder (package runfolder) and reports its progress
// as events (Options.Progress) that the caller draws.
package train
