// Package card writes the record and the card of the shipped model, the
// two files that describe checkpoints/shipped/dama.ckpt next to it:
//
//   - model.json (checkpoints.RecordFile), the record: a Record as
//     indented JSON, format Version 1. It holds the model's SHA-256,
//     network and step, the project revision that shipped it, the
//     lineage of training pieces (each a dama train run; a run started
//     with --init from the model shipped before continues the lineage)
//     and their totals of games, positions and hours, the ladder rating
//     and direct match of this model, and the ladder ratings of every
//     rated model of the lineage, oldest first. dama ship reads the
//     previous record in its folder to go on with the lineage (NewRecord);
//     a record of another version is refused.
//   - MODEL.md (checkpoints.CardFile), the card: Markdown written from the
//     record alone (Record.Markdown), so that dama ship rewrite-card
//     (Rewrite) can write it again after its layout changed or a rating
//     was added to the record by hand.
//
// Ship is the whole of dama ship: it slims and exports the checkpoint,
// rates it on the ladder and in a match with the player its caller makes,
// and writes the four files together: dama.ckpt, dama.onnx, model.json
// and MODEL.md. Stage writes the first two under temporary names and
// checks that the other two can be written, before the ladder and the
// match are played; Shipment.Commit adds the record and the card and
// renames all four into place, all of them or none (internal/atomicfile's
// Batch: a failed rename puts back the files already replaced). Rewrite
// replaces MODEL.md alone, under a temporary name renamed into place.
//
// RunPiece sums a run folder's generation records into the Piece that
// trained a model, and CheckModelOfRun checks that the model was trained
// in that run, so that the totals are the model's.
package card
