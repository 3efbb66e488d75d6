package calls

import (
	"encoding/binary"
	"fmt"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/wire"
)

// DecodeNotes unpacks the payload of a policy's Notes frame: the number
// of jobs its notes cover (uint32, little-endian), then the notes packed
// for that many jobs as protocol 12 packs them (wire.AppendNotes). Only
// the form is checked here: the engine pads the notes to the run's jobs
// and checks them (sim.CheckNotes), so notes of more jobs than the run
// has fail the run there.
func DecodeNotes(p []byte) (*sdk.Notes, error) {
	if len(p) < 4 {
		return nil, fmt.Errorf("%d bytes, short of a count of jobs", len(p))
	}
	jobs := binary.LittleEndian.Uint32(p)
	return wire.DecodeNotes(p[4:], int(jobs))
}

// AppendNotes packs notes of jobs jobs as DecodeNotes unpacks them: what
// the Python package's encode_notes writes.
func AppendNotes(dst []byte, n *sdk.Notes, jobs int) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(jobs))
	return wire.AppendNotes(dst, n, jobs)
}
