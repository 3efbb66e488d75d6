package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// A message is one frame of the Run stream. On the wire it is the protobuf
// message google.protobuf.BytesValue holding the frame, as protocol 2 sent
// it (wrapperspb.BytesValue): a field 1 tag, the length, the bytes; nothing
// for an empty frame. frameCodec reads and writes it without the
// protobuf runtime: received frames land in a buffer that the next message
// reuses, instead of a fresh allocation per frame and a copy more.
type message struct {
	buf   []byte // storage, reused from frame to frame
	frame []byte // the frame, within buf
}

// bytesValueTag is the tag of field 1 of wire type 2 (bytes).
const bytesValueTag = 1<<3 | 2

// maxFieldNumber is the largest protobuf field number.
const maxFieldNumber = 1<<29 - 1

// frameCodec is the gRPC codec of the Run stream: it encodes *message
// values and hands anything else (go-plugin's own services, Describe) to
// gRPC's protobuf codec. Its name is the protobuf codec's, so that the
// content type on the wire does not change.
type frameCodec struct {
	proto encoding.CodecV2
}

func newFrameCodec() frameCodec {
	return frameCodec{proto: encoding.GetCodecV2(protocodec.Name)}
}

func (frameCodec) Name() string { return protocodec.Name }

func (c frameCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(*message)
	if !ok {
		return c.proto.Marshal(v)
	}
	if len(m.frame) == 0 {
		return nil, nil
	}
	size := 1 + binary.MaxVarintLen64 + len(m.frame)
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	b := append((*buf)[:0], bytesValueTag)
	b = binary.AppendUvarint(b, uint64(len(m.frame)))
	b = append(b, m.frame...)
	*buf = b
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

func (c frameCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(*message)
	if !ok {
		return c.proto.Unmarshal(data, v)
	}
	n := data.Len()
	if cap(m.buf) < n {
		m.buf = make([]byte, n)
	}
	m.buf = m.buf[:n]
	data.CopyTo(m.buf)
	frame, err := parseBytesValue(m.buf)
	if err != nil {
		return err
	}
	m.frame = frame
	return nil
}

// parseBytesValue returns the bytes of an encoded BytesValue. It accepts
// what a protobuf decoder would for that message (fields in any number, the
// last occurrence of field 1 winning, unknown fields skipped) except groups.
func parseBytesValue(b []byte) ([]byte, error) {
	var value []byte
	for len(b) > 0 {
		tag, k := binary.Uvarint(b)
		if k <= 0 || tag>>3 == 0 || tag>>3 > maxFieldNumber {
			return nil, errors.New("wire: malformed message tag")
		}
		b = b[k:]
		var field []byte
		switch tag & 7 {
		case 0: // varint
			if _, k = binary.Uvarint(b); k <= 0 {
				return nil, errors.New("wire: malformed varint field")
			}
			b = b[k:]
		case 1: // fixed64
			if len(b) < 8 {
				return nil, errors.New("wire: truncated fixed64 field")
			}
			b = b[8:]
		case 2: // length-delimited
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, errors.New("wire: truncated bytes field")
			}
			field, b = b[k:k+int(l)], b[k+int(l):]
		case 5: // fixed32
			if len(b) < 4 {
				return nil, errors.New("wire: truncated fixed32 field")
			}
			b = b[4:]
		default:
			return nil, fmt.Errorf("wire: unsupported field wire type %d", tag&7)
		}
		if tag == bytesValueTag {
			value = field
		}
	}
	return value, nil
}
