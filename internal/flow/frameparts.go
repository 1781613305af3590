package flow

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// protobufMagic begins every object kube-apiserver encodes as protobuf
// (the envelope k8s.io/apimachinery calls runtime.Unknown).
var protobufMagic = []byte("k8s\x00")

// frameParts says what the bytes of a watch frame are.
type frameParts struct {
	// protobuf: a 4-byte big-endian length prefix (length is its value)
	// and a metav1.WatchEvent of that length, field 1 its type, field 2
	// its object (objectLen bytes, in the envelope when magic).
	protobuf  bool
	length    int
	typ       string
	objectLen int
	magic     bool
	// apiVersion and kind are the envelope's type meta.
	apiVersion, kind string
}

// splitFrame reads a watch frame of the given content type. ok is false
// for a frame it cannot read (then it is shown as bytes, unlabelled).
func splitFrame(contentType string, frame []byte) (frameParts, bool) {
	if !strings.Contains(contentType, "protobuf") {
		return frameParts{}, false
	}
	if len(frame) < 4 {
		return frameParts{}, false
	}
	p := frameParts{protobuf: true, length: int(binary.BigEndian.Uint32(frame))}
	ev := frame[4:]
	if p.length != len(ev) {
		return frameParts{}, false
	}
	fields, ok := protoFields(ev)
	if !ok {
		return frameParts{}, false
	}
	p.typ = string(fields[1])
	raw, ok := protoFields(fields[2]) // RawExtension: field 1, the raw bytes
	if !ok {
		return p, true
	}
	p.objectLen = len(raw[1])
	if p.magic = bytes.HasPrefix(raw[1], protobufMagic); p.magic {
		unknown, ok := protoFields(raw[1][len(protobufMagic):])
		if ok {
			if tm, ok := protoFields(unknown[1]); ok {
				p.apiVersion, p.kind = string(tm[1]), string(tm[2])
			}
		}
	}
	return p, true
}

// protoFields reads a protobuf message's length-delimited fields by
// number (the last of each wins); ok is false for bytes that are not
// such a message. Other wire types are skipped.
func protoFields(b []byte) (map[int][]byte, bool) {
	out := map[int][]byte{}
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, false
		}
		b = b[n:]
		switch key & 7 {
		case 0: // varint
			_, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, false
			}
			b = b[n:]
		case 2: // length-delimited
			size, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < size {
				return nil, false
			}
			out[int(key>>3)] = b[n : n+int(size)]
			b = b[n+int(size):]
		default:
			return nil, false
		}
	}
	return out, true
}
