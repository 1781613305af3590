package main

import (
	"encoding/json"
	"sort"
	"strings"
)

// A body's shape is the set of its JSON paths, each with its JSON type:
// "metadata.name: string", "items[].metadata.labels.*: string". Arrays
// are the union of their elements' shapes ("[]"). Maps keyed by data
// (collapsed below) are the union of their values' shapes (".*"), so
// that the shape does not hold the names of labels, data keys and such.
// metadata.managedFields is left out (and noted): kubesim keeps none yet,
// a difference the report states once rather than in every answer.

// collapsed are the keys whose maps are keyed by data.
var collapsed = map[string]bool{
	"labels": true, "annotations": true, "data": true, "binaryData": true, "stringData": true,
	"matchLabels": true, "nodeSelector": true, "capacity": true, "allocatable": true,
	"limits": true, "requests": true, "paths": true, "definitions": true, "schemas": true,
	"properties": true,
}

// shaper computes shapes; it notes whether managedFields were met.
type shaper struct {
	ignore        map[string]string // path prefixes left out
	depth         int               // 0: no limit
	managedFields bool
	set           map[string]bool
}

// of is doc's shape, sorted.
func (s *shaper) of(doc any) []string {
	s.set = map[string]bool{}
	s.walk("", doc, 0)
	out := make([]string, 0, len(s.set))
	for p := range s.set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// walk adds the shape of v, found at path, depth levels down.
func (s *shaper) walk(path string, v any, depth int) {
	if s.ignored(path) || (s.depth > 0 && depth > s.depth) {
		return
	}
	if path != "" {
		s.set[path+": "+jsonType(v)] = true
	}
	switch v := v.(type) {
	case map[string]any:
		s.walkMap(path, v, depth)
	case []any:
		for _, e := range v {
			s.walk(path+"[]", e, depth+1)
		}
	}
}

// walkMap adds the shapes of a map's values.
func (s *shaper) walkMap(path string, m map[string]any, depth int) {
	last := path[strings.LastIndex(path, ".")+1:]
	if collapsed[last] || (last == "selector" && allStrings(m)) {
		for _, e := range m {
			s.walk(path+".*", e, depth+1)
		}
		return
	}
	for k, e := range m {
		if k == "managedFields" && strings.HasSuffix(path, "metadata") {
			s.managedFields = true
			continue
		}
		s.walk(join(path, k), e, depth+1)
	}
}

// ignored tells whether path is under one of the ignored prefixes.
func (s *shaper) ignored(path string) bool {
	for p := range s.ignore {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") {
			return true
		}
	}
	return false
}

// allStrings tells whether every value of m is a string.
func allStrings(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// join is path.key, or key at the top.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonType is the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}
