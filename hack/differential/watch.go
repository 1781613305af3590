package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// readWatch reads a watch stream: the sequence of its events and the
// shape of all of them, as one JSON array.
func (a *answer) readWatch(r request, body []byte, n normalizer) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var all []any
	for {
		var ev map[string]any
		err := d.Decode(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			a.events = append(a.events, "undecodable: "+n.text(err.Error()))
			break
		}
		all = append(all, ev)
		a.events = append(a.events, eventLine(ev, n))
	}
	s := shaper{ignore: r.ignore, depth: r.depth}
	a.shape = s.of(all)
	a.managedFields = s.managedFields
}

// eventLine is one event as compared: its type and its object's kind;
// its object's name; a bookmark's end-of-initial-events annotation; an error's Status.
func eventLine(ev map[string]any, n normalizer) string {
	obj, _ := ev["object"].(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	line := fmt.Sprintf("%s %s %s", str(ev["type"]), str(obj["kind"]), n.text(str(meta["name"])))
	ann, _ := meta["annotations"].(map[string]any)
	if v, ok := ann["k8s.io/initial-events-end"]; ok {
		line += fmt.Sprintf(" initial-events-end=%v", v)
	}
	if str(obj["kind"]) == "Status" {
		s := readStatus(obj, n)
		line += fmt.Sprintf(" %d %s: %s", s.Code, s.Reason, s.Message)
	}
	return line
}
