package card

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"dama/checkpoints"
	"dama/internal/atomicfile"
)

// MaxFileBytes bounds each shipped file: they live in the repository.
const MaxFileBytes = 10 << 20

// Shipment is the four files of a model being shipped into a folder,
// written together (see the package comment). Stage begins one; Commit
// ends it; Abort, deferred, removes what an uncommitted one staged.
type Shipment struct {
	dir   string
	files atomicfile.Batch
}

// Stage begins a shipment into dir of the checkpoint ckpt (dama.ckpt's
// bytes) and its ONNX export onnx: it refuses a file over MaxFileBytes,
// creates dir, writes both files under temporary names, and checks that
// the record and the card can be written there, so that a folder that
// takes no file fails before the model is rated. After an error nothing
// is left staged.
func Stage(dir string, ckpt, onnx []byte) (*Shipment, error) {
	if len(ckpt) > MaxFileBytes {
		return nil, fmt.Errorf("the model is %d bytes, over the %d allowed in the repository", len(ckpt), MaxFileBytes)
	}
	if len(onnx) > MaxFileBytes {
		return nil, fmt.Errorf("the ONNX export is %d bytes, over the %d allowed in the repository", len(onnx), MaxFileBytes)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Shipment{dir: dir}
	if err := s.files.AddFile(filepath.Join(dir, checkpoints.ModelFile), ckpt); err != nil {
		return nil, err
	}
	if err := s.files.AddFile(filepath.Join(dir, checkpoints.ONNXFile), onnx); err != nil {
		return nil, err
	}
	for _, name := range []string{checkpoints.RecordFile, checkpoints.CardFile} {
		if err := atomicfile.CheckWritable(filepath.Join(dir, name)); err != nil {
			s.Abort()
			return nil, err
		}
	}
	return s, nil
}

// Commit adds r as the record and the card written from it, and renames
// the four files into place, all of them or none.
func (s *Shipment) Commit(r Record) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		s.Abort()
		return err
	}
	if err := s.files.AddFile(filepath.Join(s.dir, checkpoints.RecordFile), append(js, '\n')); err != nil {
		return err
	}
	if err := s.files.AddFile(filepath.Join(s.dir, checkpoints.CardFile), []byte(r.Markdown())); err != nil {
		return err
	}
	return s.files.Commit()
}

// Abort removes the files of an uncommitted shipment; after Commit it
// does nothing.
func (s *Shipment) Abort() { s.files.Abort() }

// Rewrite writes the card in dir again from dir's record (ReadRecord),
// under a temporary name renamed into place; nothing else changes.
func Rewrite(dir string) error {
	r, err := ReadRecord(filepath.Join(dir, checkpoints.RecordFile))
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, checkpoints.CardFile), []byte(r.Markdown()))
}
