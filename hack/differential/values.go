package main

import (
	"encoding/json"
	"strings"
)

// valuesAt are the values at a dot path of doc; "[]" after a key takes
// every element of the array there ("items[].metadata.name").
func valuesAt(doc any, path string) []any {
	cur := []any{doc}
	for _, part := range strings.Split(path, ".") {
		each := strings.HasSuffix(part, "[]")
		key := strings.TrimSuffix(part, "[]")
		var next []any
		for _, c := range cur {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			v, ok := m[key]
			if !ok {
				continue
			}
			if arr, isArr := v.([]any); each && isArr {
				next = append(next, arr...)
			} else if !each {
				next = append(next, v)
			}
		}
		cur = next
	}
	return cur
}

// pickValues are "path = value" for each path, values normalized; a path
// with no value says "(absent)".
func pickValues(doc any, paths []string, n normalizer) []string {
	var out []string
	for _, p := range paths {
		vs := valuesAt(doc, p)
		if len(vs) == 0 {
			out = append(out, p+" = (absent)")
			continue
		}
		var parts []string
		for _, v := range vs {
			b, _ := json.Marshal(v)
			parts = append(parts, n.text(string(b)))
		}
		out = append(out, p+" = "+strings.Join(parts, ", "))
	}
	return out
}
