package scenarios

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// decode reads n into *dst strictly. dst's type is a struct whose
// exported fields carry yaml tags (a field tagged load:"required" must
// be given, an embedded struct tagged ",inline" adds its fields in its
// place, a list or mapping field tagged expected:"..." says what it must
// be in messages), a slice or map of one, or a value type that reads
// itself (load_values.go); a yaml.Node field is left for the caller.
//
// Before yaml.v3 decodes n (Node.Decode), a checker walks it against
// the type and reports, at a node, what yaml.v3 would report at a line
// only or not at all: a mapping or a list where the type has another
// kind, an unknown key, a key given twice, an alias or nothing (null)
// where a value is due. A missing required field is reported after the
// values are decoded, so that a bad value earlier in the mapping is
// reported first. Errors are *nodeError, or yaml.v3's *yaml.TypeError
// for a field of a plain Go type; the caller names them
// (scope.fileError).
func decode(n *yaml.Node, dst any) error {
	var c checker
	if err := c.check(n, reflect.TypeOf(dst).Elem(), ""); err != nil {
		return err
	}
	return c.decode(n, dst)
}

// decodeAs is decode of n into a T.
func decodeAs[T any](n *yaml.Node) (T, error) {
	var v T
	err := decode(n, &v)
	return v, err
}

// decodeWith is decode of struct *dst from mapping n whose keys must be
// among allowed (in the order messages list them) instead of dst's
// fields: the caller reads those dst has no field for (a step's action),
// and a field of dst not allowed is not given (a question's fact fields
// other than its fact's).
func decodeWith(n *yaml.Node, dst any, allowed []string) error {
	var c checker
	if err := c.checkStruct(n, reflect.TypeOf(dst).Elem(), allowed, ""); err != nil {
		return err
	}
	return c.decode(n, dst)
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	nodeType        = reflect.TypeFor[yaml.Node]()
)

// checker walks a node against the type it is to be decoded into (see
// decode).
type checker struct {
	// missing is the first missing required field found.
	missing error
}

// decode has yaml.v3 decode n into dst, once c has checked n.
func (c *checker) decode(n *yaml.Node, dst any) error {
	if err := n.Decode(dst); err != nil {
		return err
	}
	return c.missing
}

// check looks at n as the value of a t; want, if not empty, is what a
// list or a mapping of t is called in messages.
func (c *checker) check(n *yaml.Node, t reflect.Type, want string) error {
	switch {
	case t == nodeType:
		return nil // the caller reads it
	case reflect.PointerTo(t).Implements(unmarshalerType):
		if n.Kind == yaml.AliasNode || n.ShortTag() == "!!null" {
			// yaml.v3 would resolve the alias, and does not hand nothing
			// to an UnmarshalYAML: let the value refuse them.
			return reflect.New(t).Interface().(yaml.Unmarshaler).UnmarshalYAML(n)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return c.check(n, t.Elem(), want)
	case reflect.Struct:
		return c.checkStruct(n, t, nil, want)
	case reflect.Map:
		return c.checkMap(n, t, want)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return errAt(n, "expected %s, got %s", cmp.Or(want, "a list"), describe(n))
		}
		for _, item := range n.Content {
			if err := c.check(item, t.Elem(), ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkStruct looks at n as a struct t whose keys must be among allowed
// (t's fields' when nil).
func (c *checker) checkStruct(n *yaml.Node, t reflect.Type, allowed []string, want string) error {
	if n.Kind != yaml.MappingNode {
		return errAt(n, "expected %s, got %s", cmp.Or(want, "a mapping"), describe(n))
	}
	fields := fieldsOf(t)
	if allowed == nil {
		for _, f := range fields {
			allowed = append(allowed, f.key)
		}
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		switch {
		case !slices.Contains(allowed, k.Value):
			return errAbout(n, k, "unknown field %q (allowed: %s)", k.Value, strings.Join(allowed, ", "))
		case given[k.Value]:
			return errAbout(n, k, "field %q given twice", k.Value)
		}
		given[k.Value] = true
	}
	for _, f := range fields {
		v := valueOf(n, f.key)
		switch {
		case v != nil:
			if err := c.check(v, f.typ, f.want); err != nil {
				return err
			}
		case f.required && c.missing == nil:
			c.missing = errAt(n, "missing field %q", f.key)
		}
	}
	return nil
}

// checkMap looks at n as a map t: a mapping, each key once and none a
// merge key.
func (c *checker) checkMap(n *yaml.Node, t reflect.Type, want string) error {
	if n.Kind != yaml.MappingNode {
		return errAt(n, "expected %s, got %s", cmp.Or(want, "a mapping"), describe(n))
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case given[k.Value]:
			return errAbout(n, k, "key %q given twice", k.Value)
		case k.ShortTag() == "!!merge":
			// yaml.v3 would merge v's mapping here, or fail at no line.
			return errAbout(n, k, "a merge key (<<) is not supported")
		}
		given[k.Value] = true
		if err := c.check(k, t.Key(), ""); err != nil {
			return err
		}
		if err := c.check(v, t.Elem(), ""); err != nil {
			return err
		}
	}
	return nil
}

// docField is a field of a struct decoded from a mapping.
type docField struct {
	key      string
	typ      reflect.Type
	required bool
	// want is the field's expected tag.
	want string
}

// fieldsOf lists the fields of struct type t by their yaml tags, in
// order; those of an embedded struct tagged ",inline" in its place.
func fieldsOf(t reflect.Type) []docField {
	var out []docField
	for i := range t.NumField() {
		f := t.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && slices.Contains(strings.Split(opts, ","), "inline"):
			out = append(out, fieldsOf(f.Type)...)
		case key == "-" || !f.IsExported():
		default:
			if key == "" {
				key = strings.ToLower(f.Name)
			}
			out = append(out, docField{key, f.Type, f.Tag.Get("load") == "required", f.Tag.Get("expected")})
		}
	}
	return out
}

// valueOf returns the value of key in mapping n, nil if it has none.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	if i := keyIndex(n, key); i >= 0 {
		return n.Content[i+1]
	}
	return nil
}

// keyOf returns the node of key in mapping n, nil if it has none.
func keyOf(n *yaml.Node, key string) *yaml.Node {
	if i := keyIndex(n, key); i >= 0 {
		return n.Content[i]
	}
	return nil
}

// keyIndex returns the index in n.Content of key in mapping n, -1 if it
// has none.
func keyIndex(n *yaml.Node, key string) int {
	if n.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}
