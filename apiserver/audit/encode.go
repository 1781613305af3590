package audit

import (
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// appendJSON appends ev as encoding/json's Marshal writes it (the same
// bytes: fields in order, omitempty, map keys sorted, strings escaped
// with HTML escaping), without its reflection: every request writes two
// events. kube-apiserver's log backend encodes its events with the JSON
// serializer, reflection included. A response Status other than a bare
// code is left to encoding/json.
func (ev *Event) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, ev.Kind)
	for _, f := range []struct{ name, value string }{
		{"apiVersion", ev.APIVersion}, {"level", ev.Level}, {"auditID", ev.AuditID},
		{"stage", ev.Stage}, {"requestURI", ev.RequestURI}, {"verb", ev.Verb},
	} {
		b = appendJSONField(b, f.name, f.value)
	}
	b = append(b, `,"user":`...)
	b = ev.User.appendJSON(b)
	if ev.ImpersonatedUser != nil {
		b = append(b, `,"impersonatedUser":`...)
		b = ev.ImpersonatedUser.appendJSON(b)
	}
	if len(ev.SourceIPs) > 0 {
		b = appendJSONStrings(append(b, `,"sourceIPs":`...), ev.SourceIPs)
	}
	if ev.UserAgent != "" {
		b = appendJSONField(b, "userAgent", ev.UserAgent)
	}
	if ev.ObjectRef != nil {
		b = ev.ObjectRef.appendJSON(append(b, `,"objectRef":`...))
	}
	if ev.ResponseStatus != nil {
		var err error
		if b, err = appendStatus(append(b, `,"responseStatus":`...), ev.ResponseStatus); err != nil {
			return nil, err
		}
	}
	b = appendMicroTime(append(b, `,"requestReceivedTimestamp":`...), ev.RequestReceivedTimestamp)
	b = appendMicroTime(append(b, `,"stageTimestamp":`...), ev.StageTimestamp)
	if len(ev.Annotations) > 0 {
		b = appendStringMap(append(b, `,"annotations":`...), ev.Annotations)
	}
	return append(b, '}'), nil
}

func (u *User) appendJSON(b []byte) []byte {
	b = appendJSONString(append(b, `{"username":`...), u.Username)
	if len(u.Groups) > 0 {
		b = appendJSONStrings(append(b, `,"groups":`...), u.Groups)
	}
	return append(b, '}')
}

func (r *ObjectRef) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for _, f := range []struct{ name, value string }{
		{"resource", r.Resource}, {"namespace", r.Namespace}, {"name", r.Name},
		{"apiGroup", r.APIGroup}, {"apiVersion", r.APIVersion}, {"subresource", r.Subresource},
	} {
		if f.value == "" {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, f.name)
		b = appendJSONString(append(b, ':'), f.value)
	}
	return append(b, '}')
}

// appendStatus writes a Status that carries only a code directly, any
// other with encoding/json.
func appendStatus(b []byte, st *metav1.Status) ([]byte, error) {
	if (*st == metav1.Status{Code: st.Code}) && st.Code != 0 {
		b = append(b, `{"metadata":{},"code":`...)
		b = strconv.AppendInt(b, int64(st.Code), 10)
		return append(b, '}'), nil
	}
	data, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

// appendMicroTime writes t as metav1.MicroTime's MarshalJSON does.
func appendMicroTime(b []byte, t metav1.MicroTime) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, metav1.RFC3339Micro)
	return append(b, '"')
}

func appendJSONField(b []byte, name, value string) []byte {
	b = append(b, ',')
	b = appendJSONString(b, name)
	return appendJSONString(append(b, ':'), value)
}

func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = appendJSONString(append(b, ':'), m[k])
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as encoding/json does, HTML escaping on:
// ", \ and the control characters escaped (\b \f \n \r \t by name), <,
// > and & as \u003c..., invalid UTF-8 as \ufffd, U+2028 and U+2029 as
// \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscapedByte(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendEscapedByte(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
