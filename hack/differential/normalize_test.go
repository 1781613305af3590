package main

import (
	"slices"
	"testing"
)

func TestNormalizerText(t *testing.T) {
	n := newNormalizer(map[string]string{"id": "abcd1234", "ns": "diff-abcd1234", "rv": "42"})
	for _, c := range []struct{ in, want string }{
		{`namespaces "diff-abcd1234-term" not found`, `namespaces "{ns}-term" not found`},
		{`node diff-abcd1234-node`, `node {ns}-node`}, // the longest value first
		{`UID in precondition: 0a1b2c3d-0000-4000-8000-00000000abcd`, `UID in precondition: <uid>`},
		{`at 2026-12-04T12:30:31Z`, `at <time>`},
		{`dial tcp 127.0.0.1:39455: refused`, `dial tcp 127.0.0.1:<port>: refused`},
		{`too old resource version: 5 (812)`, `too old resource version: <rv> (<rv>)`},
		{`Too large resource version: 99, current: 315`, `Too large resource version: <rv>, current: <rv>`},
		{`the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (310)`,
			`the ResourceVersion in the precondition (<rv>) does not match the ResourceVersion in record (<rv>)`},
		{`ConfigMap gen-x7k2p`, `ConfigMap gen-<suffix>`},
		{`value 42 stays`, `value 42 stays`},
	} {
		if got := n.text(c.in); got != c.want {
			t.Errorf("text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShape(t *testing.T) {
	doc, err := decodeJSON([]byte(`{"metadata":{"name":"a","labels":{"x":"1","y":"2"},"managedFields":[{}]},
		"items":[{"a":1},{"b":"s"}],"status":{"phase":"Running"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := shaper{ignore: map[string]string{"status": "why"}}
	got := s.of(doc)
	want := []string{"items: array", "items[].a: number", "items[].b: string", "items[]: object",
		"metadata.labels.*: string", "metadata.labels: object", "metadata.name: string", "metadata: object"}
	if !slices.Equal(got, want) {
		t.Errorf("shape = %q, want %q", got, want)
	}
	if !s.managedFields {
		t.Error("managedFields were not noted")
	}
}
