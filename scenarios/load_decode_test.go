package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// The types TestDecode decodes into.
type (
	testRef struct {
		Kind str `yaml:"kind" load:"required"`
		Name str `yaml:"name"`
	}
	testItem struct {
		ID    integer `yaml:"id" load:"required"`
		Names []str   `yaml:"names" expected:"a list of names"`
	}
	testDoc struct {
		testRef `yaml:",inline"`
		Wait    *duration             `yaml:"wait"`
		Items   []testItem            `yaml:"items"`
		Labels  map[mapKey]scalarText `yaml:"labels"`
		Plain   []string              `yaml:"plain"`
	}
)

// TestDecode: what decode makes of good and bad mappings, its errors
// named as the loader names them (after the key "k").
func TestDecode(t *testing.T) {
	tests := []struct {
		name, src string
		want      testDoc
		wantErr   string // line:col: message
	}{
		{name: "all", src: "{kind: Pod, name: web, wait: 2s, items: [{id: 1, names: [a, b]}], labels: {app: web, n: 3}, plain: [x]}",
			want: testDoc{testRef: testRef{Kind: "Pod", Name: "web"}, Wait: ptrTo(duration(2 * time.Second)),
				Items: []testItem{{ID: 1, Names: []str{"a", "b"}}}, Labels: map[mapKey]scalarText{"app": "web", "n": "3"}, Plain: []string{"x"}}},
		{name: "unknown field lists the inline fields first", src: "{kind: Pod, nmae: web}",
			wantErr: `1:13: k: unknown field "nmae" (allowed: kind, name, wait, items, labels, plain)`},
		{name: "field twice", src: "kind: Pod\nkind: Node\n", wantErr: `2:1: k: field "kind" given twice`},
		{name: "not a mapping", src: "[kind]", wantErr: `1:1: k: expected a mapping, got a list`},
		{name: "wrong type in a list item", src: "{kind: Pod, items: [{id: 1}, {id: x}]}", wantErr: `1:35: k.items[1].id: expected an integer, got a string ("x")`},
		{name: "unknown field in a list item", src: "{kind: Pod, items: [{id: 1, nmes: []}]}", wantErr: `1:29: k.items[0]: unknown field "nmes" (allowed: id, names)`},
		{name: "missing field in a list item", src: "{kind: Pod, items: [{names: []}]}", wantErr: `1:21: k.items[0]: missing field "id"`},
		{name: "a bad value before a missing field", src: "{wait: soon}", wantErr: `1:8: k.wait: bad duration "soon" (use a number with a unit: 500ms, 2s, 1m)`},
		{name: "missing field", src: "{wait: 1s}", wantErr: `1:1: k: missing field "kind"`},
		{name: "what a list must be", src: "{kind: Pod, items: [{id: 1, names: {a: b}}]}", wantErr: `1:36: k.items[0].names: expected a list of names, got a mapping`},
		{name: "nothing", src: "{kind: Pod, name: }", wantErr: `1:19: k.name: expected a string, got nothing`},
		{name: "nothing in a list", src: "{kind: Pod, items: [~]}", wantErr: `1:21: k.items[0]: expected a mapping, got nothing`},
		{name: "an alias", src: "{kind: &p Pod, name: *p}", wantErr: `1:22: k.name: expected a string, got an alias`},
		{name: "a map's key twice", src: "{kind: Pod, labels: {a: 1, a: 2}}", wantErr: `1:28: k.labels: key "a" given twice`},
		{name: "a merge key", src: "{kind: Pod, labels: {<<: {a: b}}}", wantErr: `1:22: k.labels: a merge key (<<) is not supported`},
		{name: "a map's value", src: "{kind: Pod, labels: {a: [1]}}", wantErr: `1:25: k.labels.a: expected a string, got a list`},
		{name: "yaml.v3's own error gets a column", src: "kind: Pod\nplain:\n  - x\n  - {a: b}\n", wantErr: `4:5: k.plain[1]: cannot unmarshal !!map into string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNode(t, tt.src)
			var got testDoc
			err := keyScope(n, "k").fileError(testFile, decode(n, &got))
			if tt.wantErr != "" {
				if want := testFile + ":" + tt.wantErr; err == nil || err.Error() != want {
					t.Errorf("%s: error\n got %v\nwant %s", tt.src, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.src, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s:\n got %+v\nwant %+v", tt.src, got, tt.want)
			}
		})
	}
}

// TestScopeNames: messages name a node after its scope: the scope's
// node by the scope's own name, the nodes below it by their path after
// the prefix (none for a step's fields), the key of a field as its value.
func TestScopeNames(t *testing.T) {
	n := mustNode(t, "a: {b: [x, {c: y}]}\nd: z\n")
	ab := valueOf(n, "a").Content[1]
	c := valueOf(ab.Content[1], "c")
	for _, tc := range []struct {
		s    scope
		node string
		want string
	}{
		{scope{n, "step 2", ""}, "root", "step 2"},
		{scope{n, "step 2", ""}, "c", "a.b[1].c"},
		{scope{n, "step 2", ""}, "key d", "d"},
		{keyScope(n, "delete"), "root", "delete"},
		{keyScope(n, "delete"), "c", "delete.a.b[1].c"},
		{keyScope(ab, "watchEvents"), "item 0", "watchEvents[0]"},
		{keyScope(ab, "watchEvents"), "root", "watchEvents"},
	} {
		node := map[string]*yaml.Node{"root": tc.s.node, "c": c, "key d": keyOf(n, "d"), "item 0": ab.Content[0]}[tc.node]
		if got := tc.s.name(node); got != tc.want {
			t.Errorf("scope %q/%q: %s is called %q, want %q", tc.s.self, tc.s.prefix, tc.node, got, tc.want)
		}
	}
	if got := strings.Join(docKeys[testDoc](), ","); got != "kind,name,wait,items,labels,plain" {
		t.Errorf("docKeys = %s", got)
	}
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
