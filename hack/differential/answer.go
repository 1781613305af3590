package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// answer is what is compared of one server's answer to a request, already
// normalized.
type answer struct {
	code      int
	mediaType string   // the Content-Type, spaces dropped
	warnings  []string // the Warning headers' texts
	status    *statusView
	// shape is the body's sorted set of "path: JSON type" (see shape.go);
	// for a text body, its lines; for a watch, the shape of its events.
	shape  []string
	values []string // "path = value" for the request's values
	events []string // a watch's events, "TYPE Kind" each
	// managedFields tells whether the body had metadata.managedFields
	// (left out of the shape, reported once).
	managedFields bool
	err           string
}

// statusView is what is compared of a metav1.Status body.
type statusView struct {
	Status, Reason, Message string
	Code                    int
	Kind, Name, Group       string   // details
	Causes                  []string // "reason field: message"
}

// summary is a one-line account of the answer for the report.
func (a answer) summary() string {
	switch {
	case a.err != "":
		return "error: " + a.err
	case a.status != nil:
		return fmt.Sprintf("%d %s %s: %s", a.code, a.status.Status, a.status.Reason, a.status.Message)
	case len(a.events) > 0:
		return fmt.Sprintf("%d, %d events", a.code, len(a.events))
	}
	return fmt.Sprintf("%d %s", a.code, a.mediaType)
}

// read turns a raw answer into what is compared, normalized by n.
func read(r request, in raw, n normalizer) answer {
	a := answer{code: in.code, mediaType: strings.ReplaceAll(in.contentType, " ", "")}
	if in.err != nil {
		a.err = n.text(in.err.Error())
		return a
	}
	for _, w := range in.warnings {
		a.warnings = append(a.warnings, n.text(w))
	}
	if r.codeOnly {
		a.shape = nil
		return a
	}
	if r.watch && in.code == 200 {
		a.readWatch(r, in.body, n)
		return a
	}
	doc, err := decodeBody(in.body, a.mediaType)
	if err != nil {
		a.shape = textLines(in.body, n)
		return a
	}
	a.readDoc(r, doc, n)
	return a
}

// readDoc reads a JSON document: a Status, or any other object's shape,
// and the request's values.
func (a *answer) readDoc(r request, doc any, n normalizer) {
	if m, ok := doc.(map[string]any); ok && m["kind"] == "Status" {
		a.status = readStatus(m, n)
		if r.unorderedCauses {
			a.status.unorder()
		}
	}
	s := shaper{ignore: r.ignore, depth: r.depth}
	a.shape = s.of(doc)
	a.managedFields = s.managedFields
	a.values = pickValues(doc, r.values, n)
}

// decodeBody decodes a JSON (or YAML) body.
func decodeBody(body []byte, mediaType string) (any, error) {
	if strings.Contains(mediaType, "yaml") {
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, err
		}
		body = j
	}
	return decodeJSON(body)
}

// decodeJSON decodes one JSON value, numbers kept as json.Number.
func decodeJSON(body []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return doc, nil
}

// textLines are a text body's normalized lines, sorted: a text answer's
// "shape".
func textLines(body []byte, n normalizer) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		lines = append(lines, "text: "+n.text(l))
	}
	sort.Strings(lines)
	return lines
}

// readStatus reads a metav1.Status body.
func readStatus(m map[string]any, n normalizer) *statusView {
	s := &statusView{Status: str(m["status"]), Reason: str(m["reason"]), Message: n.text(str(m["message"]))}
	if c, ok := m["code"].(json.Number); ok {
		i, _ := c.Int64()
		s.Code = int(i)
	}
	d, _ := m["details"].(map[string]any)
	s.Kind, s.Name, s.Group = str(d["kind"]), n.text(str(d["name"])), str(d["group"])
	causes, _ := d["causes"].([]any)
	for _, c := range causes {
		cm, _ := c.(map[string]any)
		s.Causes = append(s.Causes, fmt.Sprintf("%s %s: %s", str(cm["reason"]), str(cm["field"]), n.text(str(cm["message"]))))
	}
	return s
}

// unorder sorts the causes and drops their list from the message
// ("X is invalid: [a, b]"), for request.unorderedCauses.
func (s *statusView) unorder() {
	sort.Strings(s.Causes)
	if i := strings.Index(s.Message, " is invalid: ["); i >= 0 {
		s.Message = s.Message[:i] + " is invalid: [the causes, in any order]"
	}
}

// str is v as a string, "" when it is not one.
func str(v any) string {
	s, _ := v.(string)
	return s
}
