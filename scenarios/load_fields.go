package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubesim/kubesim/internal/flow"
)

// errAt returns a *FileError at n's position in the loader's file.
func (l *loader) errAt(n *yaml.Node, format string, args ...any) *FileError {
	return &FileError{File: l.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// field is one key of a mapping and its value.
type field struct {
	key, val *yaml.Node
}

// fields checks that n is a mapping whose keys are all in allowed (each
// once) and returns them by name, with the keys in file order.
func (l *loader) fields(n *yaml.Node, what string, allowed []string) (map[string]field, []string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, l.errAt(n, "%s: expected a mapping, got %s", what, describe(n))
	}
	out := map[string]field{}
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, nil, l.errAt(k, "%s: unknown field %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, nil, l.errAt(k, "%s: field %q given twice", what, k.Value)
		}
		out[k.Value] = field{k, v}
		order = append(order, k.Value)
	}
	return out, order, nil
}

// str reads a string, without terminal control sequences (every string
// of a scenario may reach the screen).
func (l *loader) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", l.errAt(n, "%s: expected a string, got %s", what, describe(n))
	}
	return flow.Printable(n.Value), nil
}

// optionalStr sets *dst to the string in fields[name] when the field is
// given and leaves it as it is otherwise; errors name the field what.name.
func (l *loader) optionalStr(fields map[string]field, what, name string, dst *string) error {
	f, ok := fields[name]
	if !ok {
		return nil
	}
	s, err := l.str(f.val, what+"."+name)
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

// scalar accepts a string or a number (quantities: cpu: 4).
func (l *loader) scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return "", l.errAt(n, "%s: expected a string or a number, got %s", what, describe(n))
	}
	return flow.Printable(n.Value), nil
}

// integer reads a YAML integer.
func (l *loader) integer(n *yaml.Node, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return 0, l.errAt(n, "%s: expected an integer, got %s", what, describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return 0, l.errAt(n, "%s: %q is not an integer", what, n.Value)
	}
	return v, nil
}

// number reads a YAML integer or float.
func (l *loader) number(n *yaml.Node, what string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, l.errAt(n, "%s: expected a number, got %s", what, describe(n))
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return 0, l.errAt(n, "%s: %q is not a number", what, n.Value)
	}
	return v, nil
}

// boolean reads true or false.
func (l *loader) boolean(n *yaml.Node, what string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, l.errAt(n, "%s: expected true or false, got %s", what, describe(n))
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, l.errAt(n, "%s: %v", what, err)
	}
	return b, nil
}

// duration reads "2s", "1m30s", "500ms" (0 is allowed as a bare number).
func (l *loader) duration(n *yaml.Node, what string) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		return 0, l.errAt(n, "%s: expected a duration such as 2s or 500ms, got %s", what, describe(n))
	}
	if n.ShortTag() == "!!int" && n.Value == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		return 0, l.errAt(n, "%s: bad duration %q (use a number with a unit: 500ms, 2s, 1m)", what, n.Value)
	}
	return d, nil
}

// oneOf reads a string that must be one of allowed.
func (l *loader) oneOf(n *yaml.Node, what string, allowed []string) (string, error) {
	s, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", l.errAt(n, "%s: %q is not one of %s", what, s, strings.Join(allowed, ", "))
	}
	return s, nil
}

// stringMap reads a mapping of scalars (labels, annotations) as strings.
func (l *loader) stringMap(n *yaml.Node, what string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, "%s: expected a mapping, got %s", what, describe(n))
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			return nil, l.errAt(v, "%s.%s: expected a string, got %s", what, k.Value, describe(v))
		}
		out[flow.Printable(k.Value)] = flow.Printable(v.Value)
	}
	return out, nil
}

// objectName reads the name of an API object (a DNS subdomain).
func (l *loader) objectName(n *yaml.Node, what string) (string, error) {
	s, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
		return "", l.errAt(n, "%s: %q is not a valid object name: %s", what, s, errs[0])
	}
	return s, nil
}
