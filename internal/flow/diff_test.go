package flow

import (
	"reflect"
	"testing"
)

func TestDiffFields(t *testing.T) {
	old := `{"metadata":{"name":"web","labels":{"a":"1"}},"spec":{"nodeName":""},
		"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True"}]}}`
	new := `{"metadata":{"name":"web","labels":{"b":"2"}},"spec":{"nodeName":"node-1"},
		"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],"podIPs":[]}}`
	got, err := DiffFields([]byte(old), []byte(new))
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldChange{
		{Path: "metadata.labels.a", Old: `"1"`},
		{Path: "metadata.labels.b", New: `"2"`},
		{Path: "spec.nodeName", Old: `""`, New: `"node-1"`},
		{Path: "status.conditions[type=Ready]", New: `{"status":"True","type":"Ready"}`},
		{Path: "status.phase", Old: `"Pending"`, New: `"Running"`},
		{Path: "status.podIPs", New: `[]`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DiffFields:\n got %v\nwant %v", got, want)
	}
	if s := want[2].String(); s != `~ spec.nodeName: "" → "node-1"` {
		t.Errorf("String() = %s", s)
	}
	if _, err := DiffFields([]byte("{"), []byte("{}")); err == nil {
		t.Errorf("DiffFields of a broken document: want an error")
	}
	if got, _ := DiffFields([]byte(new), []byte(new)); len(got) != 0 {
		t.Errorf("DiffFields of equal documents = %v, want none", got)
	}
}
