package calls

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/schedlab/schedlab/sdk"
)

// InitDoc is the JSON of an Init frame.
type InitDoc struct {
	Protocol       int               `json:"protocol"`
	Platform       *sdk.Platform     `json:"platform"`
	Params         map[string]string `json:"params"`
	Seed           uint64            `json:"seed"`
	ExactEstimates bool              `json:"exact_estimates"`
	// Power is the run's power model; absent without one, so that the
	// Init of such a run is what it was before power.
	Power *sdk.Power `json:"power,omitempty"`
	// Outages says the run has outages of nodes: its State frames carry
	// them (Encoder). Absent without, as Power.
	Outages bool `json:"outages,omitempty"`
	// IO is the run's model of jobs that move data: its State frames end
	// with where each running job is in its phases (Encoder). Absent
	// without, as Power.
	IO *sdk.IO `json:"io,omitempty"`
}

// PolicyError is a failure the policy reported (an Error frame): its text,
// for a Python policy the end of the traceback.
type PolicyError struct{ Text string }

func (e *PolicyError) Error() string { return e.Text }

// Remote is the host's stand-in, for one run, for a policy served over the
// call protocol on Conn: the engine calls it as any policy, and it asks the
// other side.
type Remote struct {
	Conn io.ReadWriter
	// Output, when set, is given what the policy printed, in order, before
	// the call it printed in returns: stream 1 is its standard output, 2
	// its standard error.
	Output func(stream byte, text []byte)
	// IO is the run's I/O model, nil for none: sdk.Env does not carry it,
	// the host's run spec does.
	IO   *sdk.IO
	enc  *Encoder
	in   io.Reader
	rbuf []byte
	wbuf []byte
	// notes says the policy keeps notes (its Ready said so); err is what
	// went wrong asking for them, which Notes cannot return.
	notes bool
	err   error
}

// Init sends the run's platform, parameters, seed, power and I/O models
// and whether it has outages, and waits for the policy to be ready.
func (r *Remote) Init(env sdk.Env) error {
	r.enc = NewEncoder(env.Platform, env.Power != nil, env.Outages)
	r.enc.IO = r.IO != nil
	doc, err := json.Marshal(InitDoc{
		Protocol: Version, Platform: env.Platform, Params: env.Params.Values(),
		Seed: env.Seed, ExactEstimates: env.ExactEstimates, Power: env.Power, Outages: env.Outages, IO: r.IO,
	})
	if err != nil {
		return err
	}
	if r.wbuf, err = WriteFrame(r.Conn, r.wbuf, MsgInit, doc); err != nil {
		return fmt.Errorf("send the run: %w", err)
	}
	p, err := r.answer(MsgReady)
	if err != nil || len(p) == 0 {
		return err
	}
	var ready ReadyDoc
	if err := json.Unmarshal(p, &ready); err != nil {
		return fmt.Errorf("%w: the policy's Ready: %w", ErrFrame, err)
	}
	r.notes = ready.Notes
	return nil
}

// Notes asks a policy whose Ready said it keeps notes for them, once the
// run's last call is answered (sdk.Noter); nil for a policy that keeps
// none. What goes wrong asking is Err's.
func (r *Remote) Notes() *sdk.Notes {
	if !r.notes || r.err != nil {
		return nil
	}
	var err error
	if r.wbuf, err = WriteFrame(r.Conn, r.wbuf, MsgNotes, nil); err != nil {
		r.err = fmt.Errorf("ask for the notes: %w", err)
		return nil
	}
	p, err := r.answer(MsgNotes)
	if err != nil {
		r.err = fmt.Errorf("the policy's notes: %w", err)
		return nil
	}
	if len(p) == 0 {
		return nil
	}
	n, err := DecodeNotes(p)
	if err != nil {
		r.err = fmt.Errorf("%w: the policy's notes: %w", ErrFrame, err)
		return nil
	}
	return n
}

// Err returns what went wrong asking for the policy's notes (Notes), if
// anything: the run fails with it.
func (r *Remote) Err() error { return r.err }

// Schedule sends the state and returns the policy's decisions.
func (r *Remote) Schedule(s *sdk.State) ([]sdk.Decision, error) {
	p, err := r.enc.State(s)
	if err != nil {
		return nil, err
	}
	if r.wbuf, err = WriteFrame(r.Conn, r.wbuf, MsgState, p); err != nil {
		return nil, fmt.Errorf("send the state: %w", err)
	}
	p, err = r.answer(MsgDecisions)
	if err != nil {
		return nil, err
	}
	return r.enc.Decisions(p)
}

// End tells the policy side that the run is over, whichever way it ended.
func (r *Remote) End() error {
	var err error
	r.wbuf, err = WriteFrame(r.Conn, r.wbuf, MsgEnd, nil)
	return err
}

// answer reads frames until one of type want or an Error, passing Output
// frames on.
func (r *Remote) answer(want byte) ([]byte, error) {
	if r.in == nil {
		// One read takes a whole frame, as a rule, not its length first;
		// a Conn already buffered (a bufio.ReadWriter) is read as it is,
		// so that no frame after the run's stays in a buffer of its own.
		if br, ok := r.Conn.(io.ByteReader); ok {
			r.in = br.(io.Reader)
		} else {
			r.in = bufio.NewReaderSize(r.Conn, 64<<10)
		}
	}
	for {
		typ, p, buf, err := ReadFrame(r.in, r.rbuf)
		r.rbuf = buf
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("the policy's connection closed: %w", err)
			}
			return nil, err
		}
		switch typ {
		case want:
			return p, nil
		case MsgError:
			return nil, &PolicyError{Text: string(p)}
		case MsgOutput:
			if len(p) > 0 && r.Output != nil {
				r.Output(p[0], p[1:])
			}
		default:
			return nil, fmt.Errorf("%w: a frame of type %q where %q was due", ErrFrame, typ, want)
		}
	}
}
