// Package runfolder is the run folder of a training run and its records:
// the folder layout, the best-model pointer, the trainer's lock, the
// archived configuration with its digest and the rules for resuming on
// it, each generation's plan and record, the JSON-lines logs (training
// metrics, arena matches, ladder ratings), and atomic writes. The trainer
// (package train), the report (package report), the broker and the
// commands all read and write a run through it.
package runfolder
