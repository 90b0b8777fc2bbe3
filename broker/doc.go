// Package broker carries a training run across machines over NATS
// JetStream: the trainer keeps its run folder as its own record, and
// self-play workers on other machines need nothing but the broker's URL and
// a credential file of their own (Credential, from AddWorker).
//
// What lives on the broker (protocol version 1, see protocolVersion):
//
//	KV bucket "dama_run"       key "config": the run's archived config.yaml
//	                           key "config.sig": JSON configSignature, the
//	                           trainer's signature of it
//	                           key "best":   JSON bestPointer, the best model
//	                           and the trainer's signature
//	                           key "state":  JSON runState, signed: running
//	                           (with the games waiting and a generation's
//	                           games, for back-pressure), paused or done
//	                           keys "seq.<worker>": the worker's last chunk number
//	object store "dama_models" accepted checkpoints, named as in the run folder
//	                           (e.g. "accepted/0003.ckpt")
//	stream "DAMA_CHUNKS"       subjects "dama.chunks.<worker>": one message per chunk of
//	                           games, the payload a selfplay games file, headers
//	                           Dama-Version, Dama-Chunk (its file name) and
//	                           Nats-Msg-Id (name and digest, so a publish retried
//	                           within the stream's duplicate window is stored
//	                           once); work-queue retention, read by the durable
//	                           consumer "trainer"
//
// Roles: a served broker (ServerOptions.Roster) has one user for the
// trainer, which may do anything, and one per worker, which may publish
// only on its own chunk subject and counter and read the configuration,
// the best pointer and the models (WorkerPermissions); the trainer
// quarantines a chunk whose name is not its publisher's. The roster file
// is read again when it changes, so AddWorker and RevokeWorker take effect
// on a running server. The trainer signs the configuration and each best
// pointer with its ed25519 key (EnsureSigner); a worker plays only what
// verifies with the public key its credential carries.
//
// Chunks travel as stream messages, not objects: a chunk of 16 games is
// about 25 KB and even 100 long games stay well under MaxChunkBytes (NATS's
// default 1 MB payload), so one publish carries a whole chunk atomically; a
// worker splits a chunk that would not fit. Models (0.5 to 4 MB and more
// with optimizer state) go to the object store.
//
// What one worker can put on the broker is bounded (limits.go): by the
// server, a message's size, the chunks of one worker waiting on the
// stream (its own subject's MaxMsgsPerSubject, a publish past it refused)
// and the stream's bytes; by the bridge, the refused chunks it keeps in
// quarantine/ and logs one by one (a few per worker and minute, the rest
// counted in a line per burst; the quarantine capped, oldest dropped).
// Workers make no consumers (WorkerPermissions).
//
// StartTrainer serves (or reaches) the broker of a trainer and starts
// its Bridge, which verifies every chunk with selfplay.Decode (format,
// checksum, legality of every move) before it writes it into the run's
// games folder; a bad one goes to quarantine/ with a log line and is never
// trained on. A chunk is acknowledged only once a generation plan that
// names it is durable (train.Options.OnPlan), so a kill of the trainer, a
// worker or the server loses no published game and consumes none twice: a
// redelivered chunk already in a plan is acknowledged, one already in the
// games folder is held again.
//
// Workers (Work) watch the "state" key (they wait while the trainer is
// paused or a generation's games already wait, and stop when the run is
// done) and the "best" key, fetch and verify each new model
// (the pointer's signature, SHA-256 against the pointer, then the
// checkpoint's own checksum), play
// chunks with the newest best model, publish them, and reconnect by
// themselves.
package broker
