package apiextensions

import (
	"encoding/json"
	"sort"
)

// flatten lists the leaves of a JSON object as "a.b.c" → its JSON text,
// skipping metadata, for reporting which defaults were applied.
func flatten(prefix string, obj map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range obj {
		if prefix == "" && (k == "metadata" || k == "apiVersion" || k == "kind") {
			continue
		}
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for p, s := range flatten(path, m) {
				out[p] = s
			}
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		out[path] = string(b)
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
