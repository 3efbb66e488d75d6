// Package calls is the call protocol: a policy served by a process in which
// the engine does not run (a Python policy), asked for its decisions at
// every scheduling point by a host that runs the engine. go-plugin starts
// the process and negotiates the protocol (Version); the run itself goes
// over a stream socket the host hands the process as its file descriptor 3,
// because a gRPC message costs a Python process about seven times what a
// socket write does (docs/python.md, "How a Python policy is called").
//
// Every message is a frame: a little-endian uint32 length, then that many
// bytes, the first of which is the message type. The host sends Init at
// the start of a run, State at each scheduling point and End when the run
// is over; the policy answers Init with Ready or Error, and State with
// Decisions or Error, each possibly preceded by Output frames (what the
// policy printed). A policy whose Ready says it keeps notes (ReadyDoc) is
// sent Notes once the run's last call is answered, and answers with its
// notes (DecodeNotes) or Error. State carries only what changed since the previous call
// (jobs that arrived, left the queue, completed; nodes whose free amounts
// changed; reservations refused) and the free totals, so that a call costs
// what changed, not the size of the queue; the policy side keeps the rest.
// Encoder spells out every field; python/src/schedlab/_wire.py is the
// other side.
package calls

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Version is the go-plugin protocol version of the call protocol. It is
// far from the protocol versions of Go plugins (sdk.ProtocolVersion), in
// which the engine runs in the plugin, so that the two never meet.
const Version = 101

// The message types.
const (
	MsgInit      = 'I' // host: the run's platform, parameters and seed (JSON)
	MsgState     = 'S' // host: a scheduling point (binary, see Encoder)
	MsgEnd       = 'X' // host: the run is over; no answer
	MsgReady     = 'R' // policy: Init went well; empty, or a ReadyDoc (JSON)
	MsgDecisions = 'D' // policy: its decisions (binary, see DecodeDecisions)
	MsgError     = 'E' // policy: it failed; the text says why (UTF-8)
	MsgOutput    = 'O' // policy: what it printed; one byte 1 (stdout) or 2 (stderr), then the text
	// MsgNotes is, from the host, the request for the policy's notes
	// (sdk.Noter), once the last call is answered, sent only to a policy
	// whose Ready said it keeps notes; from the policy, its notes
	// (DecodeNotes), or nothing for none.
	MsgNotes = 'N'
)

// ReadyDoc is the JSON a policy may send in its Ready frame; an empty
// Ready (a package from before notes) says none of it.
type ReadyDoc struct {
	// Notes says the policy keeps notes per job: the host asks for them
	// once the run's last call is answered (MsgNotes).
	Notes bool `json:"notes,omitempty"`
}

// MaxFrame bounds a frame's length: a policy's answer beyond it is
// nonsense, not a schedule.
const MaxFrame = 1 << 30

// ErrFrame reports a frame that breaks the protocol.
var ErrFrame = errors.New("calls: bad frame")

// WriteFrame writes one frame of type typ with payload p.
func WriteFrame(w io.Writer, buf []byte, typ byte, p []byte) ([]byte, error) {
	buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(1+len(p)))
	buf = append(buf, typ)
	buf = append(buf, p...)
	_, err := w.Write(buf)
	return buf, err
}

// ReadFrame reads one frame into buf (grown as needed) and returns its type
// and payload, which alias buf.
func ReadFrame(r io.Reader, buf []byte) (typ byte, payload, grown []byte, err error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, buf, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n == 0 || n > MaxFrame {
		return 0, nil, buf, fmt.Errorf("%w: length %d", ErrFrame, n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, buf, err
	}
	return buf[0], buf[1:], buf, nil
}

// reader reads little-endian values from a payload, remembering the first
// shortfall.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %d bytes short", ErrFrame, n-len(r.b))
		}
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) i32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.LittleEndian.Uint32(b))
	}
	return 0
}

func (r *reader) u32() uint32 { return uint32(r.i32()) }

func (r *reader) i64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *reader) u64() uint64 { return uint64(r.i64()) }

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// count reads a count of items of at least size bytes each, refusing one
// the rest of the payload cannot hold (so that nonsense allocates nothing).
func (r *reader) count(size int) int {
	n := r.u32()
	if r.err == nil && uint64(n)*uint64(size) > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: %d items of %d bytes in %d", ErrFrame, n, size, len(r.b))
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func appendI32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }
func appendI64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }
func appendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
