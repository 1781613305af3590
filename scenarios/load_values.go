package scenarios

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubesim/kubesim/internal/flow"
)

// The values a scenario file's fields hold. Each reads one node in its
// UnmarshalYAML and refuses a node of another kind, an alias and nothing
// (see checker.check) with a *nodeError at it. Text has its terminal
// control sequences removed (flow.Printable): every string of a
// scenario may reach the screen.

// str is a string.
type str string

func (s *str) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return errAt(n, "expected a string, got %s", describe(n))
	}
	*s = str(flow.Printable(n.Value))
	return nil
}

// or returns the string s points to, def if s is nil (a field not
// given).
func (s *str) or(def string) string {
	if s == nil {
		return def
	}
	return string(*s)
}

// oneOf returns the string s points to, which must be one of allowed
// (else an error at n, the node s was read from), or def if s is nil.
func (s *str) oneOf(n *yaml.Node, def string, allowed []string) (string, error) {
	if s == nil {
		return def, nil
	}
	return string(*s), oneOf(n, string(*s), allowed)
}

// strOrNumber is a string or a number, as written (a quantity: cpu: 4).
type strOrNumber string

func (s *strOrNumber) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return errAt(n, "expected a string or a number, got %s", describe(n))
	}
	*s = strOrNumber(flow.Printable(n.Value))
	return nil
}

// scalarText is any value but a mapping, a list or nothing, as written:
// the value of a label may be 3 or true.
type scalarText string

func (s *scalarText) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return errAt(n, "expected a string, got %s", describe(n))
	}
	*s = scalarText(flow.Printable(n.Value))
	return nil
}

// mapKey is a key of a mapping of names (labels, scores by node), as
// written.
type mapKey string

func (k *mapKey) UnmarshalYAML(n *yaml.Node) error {
	*k = mapKey(flow.Printable(n.Value))
	return nil
}

// integer is a YAML integer.
type integer int64

func (i *integer) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return errAt(n, "expected an integer, got %s", describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return errAt(n, "%q is not an integer", n.Value)
	}
	*i = integer(v)
	return nil
}

// count is an integer from 0 to 2^31-1.
type count int64

func (c *count) UnmarshalYAML(n *yaml.Node) error {
	v, err := atLeast(n, 0)
	*c = count(v)
	return err
}

// positive is an integer from 1 to 2^31-1.
type positive int64

func (p *positive) UnmarshalYAML(n *yaml.Node) error {
	v, err := atLeast(n, 1)
	*p = positive(v)
	return err
}

// int64Of returns the integer p points to as an *int64, nil if p is nil
// (a field not given).
func int64Of[T ~int64](p *T) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

// atLeast reads an integer from least to 2^31-1.
func atLeast(n *yaml.Node, least int64) (int64, error) {
	var v integer
	if err := v.UnmarshalYAML(n); err != nil {
		return 0, err
	}
	if int64(v) < least || v > 1<<31-1 {
		return 0, errAt(n, "%d is out of range (at least %d)", v, least)
	}
	return int64(v), nil
}

// number is a YAML integer or float.
type number float64

func (f *number) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return errAt(n, "expected a number, got %s", describe(n))
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return errAt(n, "%q is not a number", n.Value)
	}
	*f = number(v)
	return nil
}

// boolean is true or false.
type boolean bool

func (b *boolean) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return errAt(n, "expected true or false, got %s", describe(n))
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		return errAt(n, "%v", err)
	}
	*b = boolean(v)
	return nil
}

// or returns the boolean b points to, def if b is nil (a field not
// given).
func (b *boolean) or(def bool) bool {
	if b == nil {
		return def
	}
	return bool(*b)
}

// duration is "2s", "1m30s", "500ms"; 0 may be a bare number.
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		return errAt(n, "expected a duration such as 2s or 500ms, got %s", describe(n))
	}
	if n.ShortTag() == "!!int" && n.Value == "0" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return errAt(n, "bad duration %q (use a number with a unit: 500ms, 2s, 1m)", n.Value)
	}
	*d = duration(v)
	return nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// slug is the name of a scenario or the id of a step: lowercase letters,
// digits and '-', starting and ending with a letter or digit.
type slug string

func (s *slug) UnmarshalYAML(n *yaml.Node) error {
	var v str
	if err := v.UnmarshalYAML(n); err != nil {
		return err
	}
	if !nameRE.MatchString(string(v)) {
		return errAt(n, "%q is not a valid name (lowercase letters, digits and '-', starting and ending with a letter or digit)", v)
	}
	*s = slug(v)
	return nil
}

// objectName is the name of an API object (a DNS subdomain).
type objectName string

func (o *objectName) UnmarshalYAML(n *yaml.Node) error {
	var v str
	if err := v.UnmarshalYAML(n); err != nil {
		return err
	}
	if errs := validation.IsDNS1123Subdomain(string(v)); len(errs) > 0 {
		return errAt(n, "%q is not a valid object name: %s", v, errs[0])
	}
	*o = objectName(v)
	return nil
}

// quantity is a resource quantity, a string or a number: 4, 500m, 8Gi.
type quantity resource.Quantity

func (q *quantity) UnmarshalYAML(n *yaml.Node) error {
	var s strOrNumber
	if err := s.UnmarshalYAML(n); err != nil {
		return err
	}
	v, err := resource.ParseQuantity(string(s))
	if err != nil {
		return errAt(n, "%q is not a quantity (like 4, 500m, 8Gi)", s)
	}
	*q = quantity(v)
	return nil
}

// text is {en: ..., zh: ...}, both given and not blank; the Chinese has
// its lines unfolded without spaces between Chinese characters.
type text flow.Text

func (t *text) UnmarshalYAML(n *yaml.Node) error {
	var d struct {
		En *str `yaml:"en"`
		Zh *str `yaml:"zh"`
	}
	if err := decode(n, &d); err != nil {
		return err
	}
	for _, lang := range []struct {
		key string
		v   *str
	}{{"en", d.En}, {"zh", d.Zh}} {
		if lang.v == nil {
			return errAt(n, "missing %s", lang.key)
		}
		if strings.TrimSpace(string(*lang.v)) == "" {
			return errAbout(n, valueOf(n, lang.key), "missing %s", lang.key)
		}
	}
	*t = text{En: strings.TrimSpace(string(*d.En)), Zh: unfoldCJK(strings.TrimSpace(string(*d.Zh)))}
	return nil
}

// oneOf returns an error at n, the node v was read from, unless v is one
// of allowed.
func oneOf(n *yaml.Node, v string, allowed []string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return errAt(n, "%q is not one of %s", v, strings.Join(allowed, ", "))
}
