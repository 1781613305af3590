package main

import (
	"bytes"
	"encoding/json"
)

// indentJSON lays out a JSON document with sorted keys and two-space
// indents, one value a line, so that a diff points at the value that
// changed; body that is not one JSON document is returned as it is.
func indentJSON(body string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.UseNumber() // numbers stay as written
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return body
	}
	return out.String()
}
