package model

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"dama/internal/atomicfile"
	"dama/internal/envelope"
)

// Checkpoint is a network with its training state and metadata, stored one
// per file.
type Checkpoint struct {
	Net  *Network
	Step int64 // training steps taken
	Meta Meta
	Opt  OptimizerState
	// Version is the format version the checkpoint was read with (set by
	// Unmarshal and Load; FormatVersionFlags: its reply head was dropped);
	// Marshal writes FormatVersion.
	Version int
}

// Meta describes where a checkpoint comes from.
type Meta struct {
	Parent       string    // the checkpoint it was trained from ("" for a fresh one)
	Created      time.Time // when it was made
	ConfigDigest string    // Config.Digest() of the network; filled in by Save
	Note         string    // free text (e.g. training options)
}

// OptimizerState is the optimizer's state: Kind "adam" has slots "m/NAME"
// and "v/NAME" per trainable tensor, "sgd" has "m/NAME"; Kind "" has none.
type OptimizerState struct {
	Kind  string
	Steps int64 // optimizer steps taken (Adam's bias correction)
	Slots []Tensor
}

// The checkpoint file format (versions 1 and 2) is an envelope of
// internal/envelope (magic "DAMANET\x1a", CRC-32C) around this payload,
// little-endian:
//
//	config   name (string), blocks, filters, policy filters, value filters, value hidden (uint32 each)
//	flags    version 2 only: uint32, 1 (bit 0: the reply head); other values are refused
//	meta     parent (string), created (int64 Unix nanoseconds, 0 for none), config digest (string), note (string)
//	step     int64
//	encoding number of input planes, policy size (uint32 each)
//	tensors  count (uint32), then each tensor
//	optimizer kind (string), steps (int64), slot count (uint32), then each slot tensor
//
// A string is a uint32 length and its bytes; a tensor is its name (string),
// kind (uint8), rank (uint8), dims (uint32 each) and values (float32 each).
//
// Checkpoints had this layout before the envelope was shared with other
// files, so files of every version are read by the same code, and a file
// written now is byte for byte what the writer before wrote.
//
// Version 2 held networks with the opponent-reply head (model.aux_reply),
// a training-only second policy head that lost its A/B and was removed
// (docs/experiments.md#the-opponent-reply-head; last in commit 0edde8a):
// its tensors (reply/...) follow the network's, in its config digest
// (" aux-reply" appended to the hashed text). Reading such a file checks
// it as that version wrote it, then drops the head's tensors and their
// optimizer slots: inference never used the head, so the network plays,
// analyses and exports as it did, and trains on (dama train --init) as the
// same network without it. Only version 1 is written.
//
// Load and Unmarshal return *envelope.Error values: errors.Is(err,
// envelope.ErrChecksum) and so on; content that passes the checksum but is
// wrong is envelope.ErrMalformed.
const (
	FormatVersion      = 1
	FormatVersionFlags = 2 // read only: a network with the reply head, which reading drops
	maxString          = 1 << 16
	maxTensors         = 1 << 12
	maxRank            = 4
	maxFileSize        = 1 << 31
)

// fileFormat is the checkpoint's envelope.
var fileFormat = envelope.Format{
	Kind:       "checkpoint",
	Magic:      [8]byte{'D', 'A', 'M', 'A', 'N', 'E', 'T', 0x1a},
	MinVersion: FormatVersion,
	MaxVersion: FormatVersionFlags,
}

// Save writes the checkpoint to path: to a temporary file in the same folder
// first, then renamed into place. It fills Meta.ConfigDigest.
func (c *Checkpoint) Save(path string) error {
	if c.Net == nil {
		return fmt.Errorf("model: save %s: no network", path)
	}
	if err := c.Net.Check(); err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	c.Meta.ConfigDigest = c.Net.Config.Digest()
	data, err := c.Marshal()
	if err != nil {
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	return nil
}

// Load reads and validates a checkpoint file. Its errors name the file.
func Load(path string) (*Checkpoint, error) {
	data, err := fileFormat.ReadFile(path, maxFileSize)
	if err != nil {
		return nil, err
	}
	ck, err := Unmarshal(data)
	return ck, envelope.WithPath(err, path)
}

// Marshal encodes the checkpoint in the file format.
func (c *Checkpoint) Marshal() ([]byte, error) {
	if c.Net == nil {
		return nil, fmt.Errorf("model: checkpoint has no network")
	}
	for _, s := range []string{c.Net.Config.Name, c.Meta.Parent, c.Meta.ConfigDigest, c.Meta.Note, c.Opt.Kind} {
		if len(s) > maxString {
			return nil, fmt.Errorf("a string field is %d bytes long, at most %d allowed", len(s), maxString)
		}
	}
	cfg := c.Net.Config
	size := envelope.HeaderLen + envelope.TrailerLen + 1024
	for _, ts := range [][]Tensor{c.Net.Tensors, c.Opt.Slots} {
		for _, t := range ts {
			size += len(t.Name) + 6 + 4*len(t.Shape) + 4*len(t.Data)
		}
	}
	le := binary.LittleEndian
	b := fileFormat.Begin(make([]byte, 0, size), FormatVersion)
	str := func(s string) {
		b = le.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	str(cfg.Name)
	for _, v := range []int{cfg.Blocks, cfg.Filters, cfg.PolicyFilters, cfg.ValueFilters, cfg.ValueHidden} {
		b = le.AppendUint32(b, uint32(v))
	}
	str(c.Meta.Parent)
	var created int64
	if !c.Meta.Created.IsZero() {
		created = c.Meta.Created.UnixNano()
	}
	b = le.AppendUint64(b, uint64(created))
	str(c.Meta.ConfigDigest)
	str(c.Meta.Note)
	b = le.AppendUint64(b, uint64(c.Step))
	b = le.AppendUint32(b, NumPlanes)
	b = le.AppendUint32(b, PolicySize)
	tensors := func(ts []Tensor) {
		b = le.AppendUint32(b, uint32(len(ts)))
		for _, t := range ts {
			str(t.Name)
			b = append(b, uint8(t.Kind), uint8(len(t.Shape)))
			for _, d := range t.Shape {
				b = le.AppendUint32(b, uint32(d))
			}
			for _, x := range t.Data {
				b = le.AppendUint32(b, math.Float32bits(x))
			}
		}
	}
	tensors(c.Net.Tensors)
	str(c.Opt.Kind)
	b = le.AppendUint64(b, uint64(c.Opt.Steps))
	tensors(c.Opt.Slots)
	return envelope.Seal(b, 0), nil
}

// Unmarshal decodes and validates a checkpoint from its file contents.
func Unmarshal(data []byte) (*Checkpoint, error) {
	version, payload, err := fileFormat.Open(data)
	if err != nil {
		return nil, err
	}
	return decodePayload(payload, version)
}

// reader decodes the payload of a checkpoint.
type reader struct{ envelope.Reader }

// newReader returns a reader of the payload b of the given format version,
// whose errors say the version and the payload offset.
func newReader(b []byte, version uint32) *reader {
	return &reader{envelope.Reader{Buf: b, Errorf: func(off int, msg string) error {
		return fileFormat.Malformed(version, "at payload offset %d: %s", off, msg)
	}}}
}

func (r *reader) i64(what string) int64 { return int64(r.U64(what)) }

func (r *reader) str(what string) string {
	n := r.U32(what + " length")
	if n > maxString {
		r.Fail("%s length %d exceeds %d", what, n, maxString)
		return ""
	}
	return string(r.Take(int(n), what))
}

func (r *reader) tensors(what string) []Tensor {
	n := r.U32(what + " count")
	if n > maxTensors {
		r.Fail("%s count %d exceeds %d", what, n, maxTensors)
		return nil
	}
	var ts []Tensor
	for i := 0; i < int(n) && r.Err == nil; i++ {
		t := Tensor{Name: r.str(fmt.Sprintf("%s %d name", what, i))}
		t.Kind = TensorKind(r.U8("tensor kind"))
		rank := int(r.U8("tensor rank"))
		if rank < 1 || rank > maxRank {
			r.Fail("tensor %s has rank %d, want 1..%d", t.Name, rank, maxRank)
			break
		}
		size := 1
		for d := 0; d < rank; d++ {
			v := r.U32("tensor dim")
			if v == 0 || int64(size)*int64(v) > int64(r.Left())/4+1 {
				r.Fail("tensor %s dim %d = %d does not fit in the %d bytes left", t.Name, d, v, r.Left())
				break
			}
			t.Shape = append(t.Shape, int(v))
			size *= int(v)
		}
		raw := r.Take(4*size, "tensor "+t.Name+" values")
		if raw == nil {
			break
		}
		t.Data = make([]float32, size)
		for j := range t.Data {
			t.Data[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		ts = append(ts, t)
	}
	return ts
}

// The reply head of format version 2: its one config flag, the suffix of
// its config digest's text and the prefix of its tensors' names.
const (
	flagReplyHead   = 1 << 0
	replyHeadDigest = " aux-reply"
	replyHeadPrefix = "reply/"
)

// dropReplyHead returns ts without the reply head's tensors (named
// replyHeadPrefix..., or an optimizer slot of one) and how many it left out.
func dropReplyHead(ts []Tensor) ([]Tensor, int) {
	var out []Tensor
	for _, t := range ts {
		if !strings.HasPrefix(t.Name, replyHeadPrefix) && !strings.HasPrefix(t.Name, SlotName(0, replyHeadPrefix)) && !strings.HasPrefix(t.Name, SlotName(1, replyHeadPrefix)) {
			out = append(out, t)
		}
	}
	return out, len(ts) - len(out)
}

// decodePayload decodes and validates the payload of a checkpoint of the
// given format version.
func decodePayload(b []byte, version uint32) (*Checkpoint, error) {
	r := newReader(b, version)
	bad := func(format string, args ...any) (*Checkpoint, error) {
		return nil, fileFormat.Malformed(version, format, args...)
	}
	var cfg Config
	cfg.Name = r.str("config name")
	dims := []*int{&cfg.Blocks, &cfg.Filters, &cfg.PolicyFilters, &cfg.ValueFilters, &cfg.ValueHidden}
	for _, d := range dims {
		*d = int(int32(r.U32("config field")))
	}
	replyHead := version == FormatVersionFlags
	if replyHead {
		if flags := r.U32("config flags"); r.Err == nil && flags != flagReplyHead {
			r.Fail("config flags %#x, want %#x (the reply head, version %d's only flag; a network without it is version %d)", flags, flagReplyHead, FormatVersionFlags, FormatVersion)
		}
	}
	ck := &Checkpoint{Version: int(version)}
	ck.Meta.Parent = r.str("parent")
	if ns := r.i64("created"); ns != 0 {
		ck.Meta.Created = time.Unix(0, ns).UTC()
	}
	ck.Meta.ConfigDigest = r.str("config digest")
	ck.Meta.Note = r.str("note")
	ck.Step = r.i64("step")
	planes, policy := r.U32("plane count"), r.U32("policy size")
	if r.Err != nil {
		return nil, r.Err
	}
	if err := cfg.Validate(); err != nil {
		return bad("%v", err)
	}
	if planes != NumPlanes || policy != PolicySize {
		return bad("encoding has %d planes and %d policy logits, this program uses %d and %d", planes, policy, NumPlanes, PolicySize)
	}
	net := &Network{Config: cfg, Tensors: r.tensors("tensor")}
	ck.Opt.Kind = r.str("optimizer kind")
	ck.Opt.Steps = r.i64("optimizer steps")
	ck.Opt.Slots = r.tensors("optimizer slot")
	if r.Err != nil {
		return nil, r.Err
	}
	if r.Off != len(b) {
		return bad("%d unexpected bytes at the end of the payload", len(b)-r.Off)
	}
	if ck.Step < 0 || ck.Opt.Steps < 0 {
		return bad("negative step count %d / %d", ck.Step, ck.Opt.Steps)
	}
	d := cfg.Digest()
	if replyHead {
		d = cfg.digest(replyHeadDigest)
	}
	if ck.Meta.ConfigDigest != d {
		return bad("config digest %q does not match the config %s (digest %s)", ck.Meta.ConfigDigest, cfg, d)
	}
	if replyHead {
		var dropped int
		if net.Tensors, dropped = dropReplyHead(net.Tensors); dropped == 0 {
			return bad("no reply head tensors (%s...) in a version %d file", replyHeadPrefix, FormatVersionFlags)
		}
		ck.Opt.Slots, _ = dropReplyHead(ck.Opt.Slots)
		ck.Meta.ConfigDigest = cfg.Digest()
	}
	if err := net.Check(); err != nil {
		return bad("%v", err)
	}
	ck.Net = net
	if err := checkSlots(net, ck.Opt); err != nil {
		return bad("%v", err)
	}
	return ck, nil
}

// slotNames are the optimizer slot prefixes, by slot number.
var slotNames = [2]string{"m/", "v/"}

// SlotName returns the name of optimizer slot number slot (0 "m/", 1 "v/")
// of the trainable tensor named tensor, as OptimizerState.Slots names it.
func SlotName(slot int, tensor string) string { return slotNames[slot] + tensor }

// checkSlots verifies the optimizer state against the network's tensors.
func checkSlots(net *Network, o OptimizerState) error {
	var nslots int
	switch o.Kind {
	case "":
		if len(o.Slots) != 0 {
			return fmt.Errorf("%d optimizer tensors without an optimizer kind", len(o.Slots))
		}
		return nil
	case "adam":
		nslots = 2
	case "sgd":
		nslots = 1
	default:
		return fmt.Errorf("unknown optimizer kind %q", o.Kind)
	}
	k := 0
	for _, t := range net.Tensors {
		if !t.Kind.Trainable() {
			continue
		}
		for s := 0; s < nslots; s++ {
			if k >= len(o.Slots) {
				return fmt.Errorf("optimizer state has %d tensors, too few for the network", len(o.Slots))
			}
			st := o.Slots[k]
			if st.Name != SlotName(s, t.Name) || !slices.Equal(st.Shape, t.Shape) {
				return fmt.Errorf("optimizer tensor %d is %s %v, want %s %v", k, st.Name, st.Shape, SlotName(s, t.Name), t.Shape)
			}
			k++
		}
	}
	if k != len(o.Slots) {
		return fmt.Errorf("optimizer state has %d tensors, want %d", len(o.Slots), k)
	}
	return nil
}

// String summarises a checkpoint: its config and step.
func (c *Checkpoint) String() string {
	return fmt.Sprintf("%s step %d", c.Net.Config, c.Step)
}
