package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
)

// manifest decodes the YAML documents of a manifest into objects: each
// must be a kind scenarios support, valid for its type (no unknown
// fields, no wrong types), with a name. at maps a position in text to one
// in file. inline says the manifest is part of the scenario file; one
// read from another file (applyFile) is never quoted in errors, which
// then say where, and what is wrong in the structure, but show none of
// its values (it might not be a manifest at all).
func (l *loader) manifest(file, text string, at func(line, col int) (int, int), inline bool) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var objs []*unstructured.Unstructured
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fe := yamlError(file, err, func(line int) (int, int) { return at(line, 1) }).(*FileError)
			fe.Msg = "manifest: " + fe.Msg
			if !inline {
				fe.Msg = "manifest: invalid YAML"
			}
			return nil, fe
		}
		if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
			continue
		}
		m := manifestDoc{file: file, at: at, inline: inline, kindOf: l.kindOf}
		u, err := m.object(doc.Content[0])
		if err != nil {
			return nil, err
		}
		l.learnKind(u)
		objs = append(objs, u)
	}
	if len(objs) == 0 {
		line, col := at(1, 1)
		return nil, &FileError{File: file, Line: line, Col: col, Msg: "manifest: no objects"}
	}
	return objs, nil
}

// manifestDoc decodes one document of a manifest (see loader.manifest).
type manifestDoc struct {
	file   string
	at     func(line, col int) (int, int)
	inline bool
	// kindOf says what the loader knows of a kind.
	kindOf func(kind string) (kindInfo, bool)
}

// errAt returns a *FileError at n's position in the manifest's file.
func (m manifestDoc) errAt(n *yaml.Node, format string, args ...any) error {
	line, col := m.at(n.Line, n.Column)
	return &FileError{File: m.file, Line: line, Col: col, Msg: "manifest: " + fmt.Sprintf(format, args...)}
}

// quote returns %q of s inline, and "" (with the space before it) for a
// manifest of another file.
func (m manifestDoc) quote(s string) string {
	if !m.inline {
		return ""
	}
	return fmt.Sprintf(" %q", s)
}

// decodeErr is the message of an error of a decoder, which may quote
// what it decoded: inline as it is, else only that there was one.
func (m manifestDoc) decodeErr(err error) string {
	if m.inline {
		return err.Error()
	}
	return "a value here does not decode as its field's type"
}

// object decodes one document: a supported kind at its apiVersion, with
// a valid name, its namespace set (or refused) as the kind is scoped, and
// no field its Go type lacks or has of another type.
func (m manifestDoc) object(root *yaml.Node) (*unstructured.Unstructured, error) {
	if root.Kind != yaml.MappingNode {
		what := describe(root)
		if !m.inline {
			what = kindOfNode(root)
		}
		return nil, m.errAt(root, "expected an object (a mapping), got %s", what)
	}
	var v any
	if err := root.Decode(&v); err != nil {
		return nil, m.errAt(root, "%s", m.decodeErr(err))
	}
	fields, _ := v.(map[string]any)
	kind, _ := fields["kind"].(string)
	info, ok := m.kindOf(kind)
	_, builtIn := kinds[kind]
	switch {
	case kind == "":
		return nil, m.errAt(root, "no kind (supported: %s)", strings.Join(kindNames, ", "))
	case !ok:
		return nil, m.errAt(findPath(root, "kind"), "unsupported kind%s (supported: %s)", m.quote(kind), strings.Join(kindNames, ", "))
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, m.errAt(root, "%s", m.decodeErr(err))
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, m.errAt(root, "%s", m.decodeErr(err))
	}
	if u.GetAPIVersion() != info.apiVersion() {
		return nil, m.errAt(findPath(root, "apiVersion"), "%s is apiVersion %s, not%s", kind, info.apiVersion(), m.quote(u.GetAPIVersion()))
	}
	if u.GetName() == "" {
		return nil, m.errAt(root, "%s without metadata.name", kind)
	}
	if errs := validation.IsDNS1123Subdomain(u.GetName()); len(errs) > 0 {
		what := "metadata.name"
		if m.inline {
			what = fmt.Sprintf("%q", u.GetName())
		}
		return nil, m.errAt(findPath(root, "metadata.name"), "%s is not a valid object name: %s", what, errs[0])
	}
	switch {
	case info.namespaced && u.GetNamespace() == "":
		u.SetNamespace(DefaultNamespace)
	case !info.namespaced && u.GetNamespace() != "":
		return nil, m.errAt(findPath(root, "metadata.namespace"), "%s is not namespaced", kind)
	}
	if !builtIn {
		return u, nil // a custom resource: its CRD's schema is checked by the server
	}
	if err := m.strict(root, schema.FromAPIVersionAndKind(u.GetAPIVersion(), kind), raw); err != nil {
		return nil, err
	}
	return u, nil
}

// strict decodes raw into kind's Go type and reports a field of a wrong
// type or an unknown field, at its place in root.
func (m manifestDoc) strict(root *yaml.Node, gvk schema.GroupVersionKind, raw []byte) error {
	typed, err := manifestScheme.New(gvk)
	if err != nil {
		return m.errAt(root, "%v", err)
	}
	strict, err := kjson.UnmarshalStrict(raw, typed)
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return m.errAt(findPath(root, te.Field), "%s: expected %s, got a %s", te.Field, te.Type.String(), te.Value)
		}
		return m.errAt(root, "%s", m.decodeErr(err))
	}
	if len(strict) > 0 {
		msg := strict[0].Error()
		return m.errAt(findPath(root, unknownFieldPath(msg)), "%s", msg)
	}
	return nil
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)

// unknownFieldPath returns the path an "unknown field" error of the
// strict decoder names ("" for none).
func unknownFieldPath(msg string) string {
	if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// findPath returns the node of a dotted path ("spec.containers.image",
// with or without [i] indexes) under root: the key node of the last
// segment found, so errors point at the field. It returns the deepest
// node found.
func findPath(root *yaml.Node, p string) *yaml.Node {
	if p == "" {
		return root
	}
	segs := strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(p), ".")
	best := root
	var walk func(n *yaml.Node, segs []string) bool
	walk = func(n *yaml.Node, segs []string) bool {
		if len(segs) == 0 {
			return true
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == segs[0] {
					best = n.Content[i]
					return walk(n.Content[i+1], segs[1:])
				}
			}
		case yaml.SequenceNode:
			if idx, err := strconv.Atoi(segs[0]); err == nil && idx < len(n.Content) {
				return walk(n.Content[idx], segs[1:])
			}
			for _, c := range n.Content {
				if walk(c, segs) {
					return true
				}
			}
		}
		return false
	}
	walk(root, segs)
	return best
}
