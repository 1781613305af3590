package flow

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// FieldChange is one difference between two versions of an object, at a
// field path such as "spec.nodeName" or "status.conditions[type=Ready].status".
// Old is empty for an added field, New for a removed one; both are JSON.
type FieldChange struct {
	Path     string
	Old, New string
}

func (c FieldChange) String() string {
	switch {
	case c.Old == "":
		return fmt.Sprintf("+ %s: %s", c.Path, c.New)
	case c.New == "":
		return fmt.Sprintf("- %s: %s", c.Path, c.Old)
	}
	return fmt.Sprintf("~ %s: %s → %s", c.Path, c.Old, c.New)
}

// DiffFields compares two JSON documents (two revisions of one object, as
// stored in etcd) and returns what changed, sorted by path. A field or
// list element that only one side has is one change, with its whole value;
// fields both have are compared inside. Elements of lists of objects that
// carry a "type" or "name" are matched by it ("conditions[type=Ready]"),
// others by position. It returns an error when either document is not
// JSON.
func DiffFields(old, new []byte) ([]FieldChange, error) {
	var a, b any
	if err := json.Unmarshal(old, &a); err != nil {
		return nil, fmt.Errorf("old: %w", err)
	}
	if err := json.Unmarshal(new, &b); err != nil {
		return nil, fmt.Errorf("new: %w", err)
	}
	var out []FieldChange
	diffValues("", a, b, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func diffValues(path string, a, b any, out *[]FieldChange) {
	ma, aMap := a.(map[string]any)
	mb, bMap := b.(map[string]any)
	if aMap && bMap {
		diffMembers(path, ".", ma, mb, out)
		return
	}
	la, aList := a.([]any)
	lb, bList := b.([]any)
	if aList && bList {
		diffMembers(path, "", keyed(la), keyed(lb), out)
		return
	}
	if ja, jb := encode(a), encode(b); ja != jb {
		*out = append(*out, FieldChange{Path: path, Old: ja, New: jb})
	}
}

// diffMembers compares the members of two objects (sep ".") or the
// elements of two lists, keyed by keyed (sep "").
func diffMembers(path, sep string, a, b map[string]any, out *[]FieldChange) {
	at := func(k string) string {
		if path == "" {
			return k
		}
		return path + sep + k
	}
	for k, va := range a {
		if vb, ok := b[k]; ok {
			diffValues(at(k), va, vb, out)
		} else {
			*out = append(*out, FieldChange{Path: at(k), Old: encode(va)})
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			*out = append(*out, FieldChange{Path: at(k), New: encode(vb)})
		}
	}
}

// keyed maps list elements to "[type=X]", "[name=X]" or "[i]".
func keyed(l []any) map[string]any {
	m := make(map[string]any, len(l))
	for i, e := range l {
		k := "[" + elementKey(e, i) + "]"
		if _, dup := m[k]; dup {
			k = fmt.Sprintf("[%d]", i)
		}
		m[k] = e
	}
	return m
}

func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// elementKey names a list element: by its type or name when it is an
// object with one, else by its index.
func elementKey(e any, i int) string {
	if m, ok := e.(map[string]any); ok {
		for _, k := range []string{"type", "name"} {
			if s, ok := m[k].(string); ok && s != "" && !strings.ContainsAny(s, "[]") {
				return k + "=" + s
			}
		}
	}
	return fmt.Sprint(i)
}
