package host

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/schedlab/schedlab/sdk"
	"github.com/schedlab/schedlab/sdk/internal/calls"
	"github.com/schedlab/schedlab/sdk/sim"
)

// CallsPolicy returns a Policy whose runs simulate in this process, each
// scheduling point's decisions asked over rw by the call protocol of
// Python policies, from a process that drives them: a learning
// environment, which starts the host rather than the other way round.
// Each run begins with the protocol's Init and ends with its End; what rw
// carries between runs is the caller's (ReadCallsMessage, WriteCallsMessage).
// Reads that rw buffers (an io.ByteReader, such as an embedded
// *bufio.Reader beside an unbuffered writer) are taken as they are, so
// that the caller may read from rw between runs; writes must not be
// buffered.
func CallsPolicy(info sdk.Info, rw io.ReadWriter) Policy {
	return callsPolicy{info: info, rw: rw}
}

type callsPolicy struct {
	info sdk.Info
	rw   io.ReadWriter
}

func (c callsPolicy) Info() sdk.Info { return c.info }

func (c callsPolicy) Close() error { return nil }

func (c callsPolicy) Run(ctx context.Context, spec RunSpec, jobs []sim.Input, sink func([]sim.Record)) (*sim.Result, error) {
	if err := callsTakeJobs(jobs); err != nil {
		return nil, err
	}
	remote := &calls.Remote{Conn: c.rw, IO: spec.IO}
	pl := sdk.Plugin{Info: c.info, New: func() sdk.Policy { return remote }}
	res, err := local{pl}.Run(ctx, spec, jobs, sink)
	if err == nil {
		err = remote.Err()
	}
	if end := remote.End(); err == nil {
		err = end
	}
	return res, err
}

// ErrCallsFeatures is the error of a run whose jobs require cluster
// features (sdk.Job.Requires) given to a policy of the call protocol
// (Python), whose encoder does not carry them.
var ErrCallsFeatures = errors.New("policies of the call protocol (Python) do not take jobs that require cluster features yet")

// callsTakeJobs refuses jobs the call protocol cannot carry.
func callsTakeJobs(jobs []sim.Input) error {
	for i := range jobs {
		if jobs[i].Job.Requires != 0 {
			return fmt.Errorf("host: job id %d requires cluster features: %w", jobs[i].Job.ID, ErrCallsFeatures)
		}
	}
	return nil
}

// WriteCallsMessage writes a message in the call protocol's format: a
// little-endian uint32 length, the type byte, the payload.
func WriteCallsMessage(w io.Writer, typ byte, payload []byte) error {
	_, err := calls.WriteFrame(w, nil, typ, payload)
	return err
}

// ReadCallsMessage reads a message in the call protocol's format.
func ReadCallsMessage(r io.Reader) (typ byte, payload []byte, err error) {
	typ, payload, _, err = calls.ReadFrame(r, nil)
	return typ, payload, err
}
