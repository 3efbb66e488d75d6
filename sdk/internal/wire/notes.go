package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/sdk"
)

// FrameNotes carries a piece of a policy's notes (sim.Result.Notes,
// protocol 12), after the drains and before the allocations: the notes
// packed by AppendNotes, cut into frames anywhere.
const FrameNotes byte = 'N'

// AppendNotes packs notes of a run of jobs jobs, little-endian: the number
// of columns (uint32), each column's name (a byte of length, the bytes),
// each column's jobs values (float64 bits); then a byte saying whether
// there are waits, and if so the reasons (a uint32 count, then each as a
// uint16 length and its bytes, in the order they first appear) and, per
// job, its number of spells (uint32) and each spell's time (int64) and
// reason (uint32, into the reasons).
func AppendNotes(dst []byte, n *sdk.Notes, jobs int) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(len(n.Columns)))
	for _, c := range n.Columns {
		dst = append(dst, byte(len(c.Name)))
		dst = append(dst, c.Name...)
	}
	for _, c := range n.Columns {
		for _, v := range c.Values[:jobs] {
			dst = le.AppendUint64(dst, math.Float64bits(v))
		}
	}
	if n.Waits == nil {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	index := map[string]uint32{}
	var reasons []string
	for _, ws := range n.Waits {
		for _, w := range ws {
			if _, ok := index[w.Reason]; !ok {
				index[w.Reason] = uint32(len(reasons))
				reasons = append(reasons, w.Reason)
			}
		}
	}
	dst = le.AppendUint32(dst, uint32(len(reasons)))
	for _, r := range reasons {
		dst = le.AppendUint16(dst, uint16(len(r)))
		dst = append(dst, r...)
	}
	for _, ws := range n.Waits[:jobs] {
		dst = le.AppendUint32(dst, uint32(len(ws)))
		for _, w := range ws {
			dst = le.AppendUint64(dst, uint64(w.From))
			dst = le.AppendUint32(dst, index[w.Reason])
		}
	}
	return dst
}

// maxNotes bounds the bytes of notes a host takes for a run of jobs jobs:
// 64 MiB, plus 16 KiB a job (a few columns and a thousand spells each),
// at most 16 GiB; a plugin that sends more fails its run.
func maxNotes(jobs int) int64 {
	return min(1<<26+int64(jobs)<<14, 1<<34)
}

// errShortNotes is the error of notes that end too soon.
var errShortNotes = errors.New("wire: notes end too soon")

// DecodeNotes unpacks what AppendNotes packed for a run of jobs jobs.
// Only the form is checked: sim.CheckNotes checks the notes.
func DecodeNotes(b []byte, jobs int) (*sdk.Notes, error) {
	le := binary.LittleEndian
	take := func(k int) ([]byte, error) {
		if k < 0 || len(b) < k {
			return nil, errShortNotes
		}
		out := b[:k]
		b = b[k:]
		return out, nil
	}
	x, err := take(4)
	if err != nil {
		return nil, err
	}
	cols := int(le.Uint32(x))
	// Each column takes at least a byte and 8 per job.
	if cols > len(b)/(1+8*jobs) {
		return nil, fmt.Errorf("wire: notes of %d columns in %d bytes", cols, len(b))
	}
	n := &sdk.Notes{Columns: make([]sdk.NoteColumn, cols)}
	for k := range n.Columns {
		if x, err = take(1); err == nil {
			x, err = take(int(x[0]))
		}
		if err != nil {
			return nil, err
		}
		n.Columns[k].Name = string(x)
	}
	for k := range n.Columns {
		if x, err = take(8 * jobs); err != nil {
			return nil, err
		}
		vals := make([]float64, jobs)
		for i := range vals {
			vals[i] = math.Float64frombits(le.Uint64(x[8*i:]))
		}
		n.Columns[k].Values = vals
	}
	if x, err = take(1); err != nil {
		return nil, err
	}
	switch x[0] {
	case 0:
		if len(b) > 0 {
			return nil, fmt.Errorf("wire: %d bytes after the notes", len(b))
		}
		return n, nil
	case 1:
	default:
		return nil, fmt.Errorf("wire: notes: waits flag %d", x[0])
	}
	if x, err = take(4); err != nil {
		return nil, err
	}
	nr := int(le.Uint32(x))
	if nr > len(b)/2 {
		return nil, fmt.Errorf("wire: notes: %d reasons in %d bytes", nr, len(b))
	}
	reasons := make([]string, nr)
	for k := range reasons {
		if x, err = take(2); err == nil {
			x, err = take(int(le.Uint16(x)))
		}
		if err != nil {
			return nil, err
		}
		reasons[k] = string(x)
	}
	if jobs > len(b)/4 {
		return nil, errShortNotes
	}
	n.Waits = make([][]sdk.WaitSpell, jobs)
	for i := range n.Waits {
		if x, err = take(4); err != nil {
			return nil, err
		}
		k := int(le.Uint32(x))
		if x, err = take(12 * k); err != nil {
			return nil, err
		}
		if k == 0 {
			continue
		}
		ws := make([]sdk.WaitSpell, k)
		for s := range ws {
			r := le.Uint32(x[12*s+8:])
			if int(r) >= nr {
				return nil, fmt.Errorf("wire: notes: reason %d of %d", r, nr)
			}
			ws[s] = sdk.WaitSpell{From: int64(le.Uint64(x[12*s:])), Reason: reasons[r]}
		}
		n.Waits[i] = ws
	}
	if len(b) > 0 {
		return nil, fmt.Errorf("wire: %d bytes after the notes", len(b))
	}
	return n, nil
}
