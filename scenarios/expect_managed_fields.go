package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// ManagedFieldsExpectation: the object's metadata.managedFields (what
// `kubectl get -o yaml --show-managed-fields` shows) has an entry of
// Manager with that Operation (Apply or Update) and Subresource ("" for
// the object itself), whose fields include every path of Owns and none
// of NotOwns; or, with Absent, that it has no such entry. Paths are written as the API server's conflict messages
// write them: .spec.replicas, .spec.template.spec.containers[name="web"].image.
type ManagedFieldsExpectation struct {
	Object                 ObjectSpec
	Manager                string
	Operation, Subresource string
	Owns, NotOwns          []string
	Absent                 bool
}

var _ prober = (*ManagedFieldsExpectation)(nil)

// managedFieldsDoc is managedFields as written.
type managedFieldsDoc struct {
	objectDoc   `yaml:",inline"`
	Manager     str      `yaml:"manager" load:"required"`
	Operation   *str     `yaml:"operation"`
	Subresource *str     `yaml:"subresource"`
	Owns        []str    `yaml:"owns"`
	NotOwns     []str    `yaml:"notOwns"`
	Absent      *boolean `yaml:"absent"`
}

// Kind returns "managedFields".
func (e *ManagedFieldsExpectation) Kind() string { return "managedFields" }

// String names the entry and the fields asked about.
func (e *ManagedFieldsExpectation) String() string {
	s := fmt.Sprintf("%s: %s's %s entry", e.Object, e.Manager, e.Operation)
	if e.Subresource != "" {
		s += " (subresource " + e.Subresource + ")"
	}
	if e.Absent {
		return s + " absent"
	}
	if len(e.Owns) > 0 {
		s += " owns " + strings.Join(e.Owns, ", ")
	}
	if len(e.NotOwns) > 0 {
		s += " and not " + strings.Join(e.NotOwns, ", ")
	}
	return s
}

// parseManagedFields reads {kind, name, namespace, manager, operation,
// subresource, owns, notOwns, absent}; operation is Apply (the default) or
// Update, subresource status or scale.
func parseManagedFields(l *loader, _ string, n *yaml.Node) (Expectation, error) {
	var d managedFieldsDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	e := &ManagedFieldsExpectation{Manager: string(d.Manager)}
	var err error
	if e.Object, err = l.objectRef(n, d.objectDoc); err != nil {
		return nil, err
	}
	if e.Operation, err = d.Operation.oneOf(valueOf(n, "operation"), "Apply", []string{"Apply", "Update"}); err != nil {
		return nil, err
	}
	if e.Subresource, err = d.Subresource.oneOf(valueOf(n, "subresource"), "", []string{"status", "scale"}); err != nil {
		return nil, err
	}
	for _, p := range d.Owns {
		e.Owns = append(e.Owns, string(p))
	}
	for _, p := range d.NotOwns {
		e.NotOwns = append(e.NotOwns, string(p))
	}
	if d.Absent != nil && bool(*d.Absent) {
		if len(e.Owns)+len(e.NotOwns) > 0 {
			return nil, errAt(valueOf(n, "absent"), "an absent entry owns nothing (leave out owns and notOwns)")
		}
		e.Absent = true
	}
	return e, nil
}

// probe reads the object and its manager's entry.
func (e *ManagedFieldsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	ri, err := p.resource(e.Object, expectUser)
	if err != nil {
		return err.Error(), false, nil
	}
	u, err := ri.Get(ctx, e.Object.Name, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	var seen []string
	for _, entry := range u.GetManagedFields() {
		seen = append(seen, entryName(entry))
		if entry.Manager != e.Manager || string(entry.Operation) != e.Operation || entry.Subresource != e.Subresource {
			continue
		}
		if e.Absent {
			return "an entry " + entryName(entry), false, nil
		}
		owned, err := ownedPaths(entry)
		if err != nil {
			return err.Error(), false, nil
		}
		got := fmt.Sprintf("%s owns %s", entryName(entry), strings.Join(owned, ", "))
		for _, want := range e.Owns {
			if !slices.Contains(owned, want) {
				return got, false, nil
			}
		}
		for _, not := range e.NotOwns {
			if slices.Contains(owned, not) {
				return got, false, nil
			}
		}
		return "", true, nil
	}
	if e.Absent {
		return "", true, nil
	}
	return "managedFields entries: " + strings.Join(seen, "; "), false, nil
}

// entryName is "manager Operation[ subresource]".
func entryName(e metav1.ManagedFieldsEntry) string {
	s := e.Manager + " " + string(e.Operation)
	if e.Subresource != "" {
		s += " " + e.Subresource
	}
	return s
}

// ownedPaths lists the leaf fields of an entry's FieldsV1 as the API
// server writes paths in conflicts (the entries for list items and maps
// themselves, "." in FieldsV1, are left out).
func ownedPaths(e metav1.ManagedFieldsEntry) ([]string, error) {
	if e.FieldsV1 == nil {
		return nil, nil
	}
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
		return nil, fmt.Errorf("%s: fieldsV1: %w", entryName(e), err)
	}
	var out []string
	set.Leaves().Iterate(func(p fieldpath.Path) { out = append(out, p.String()) })
	return out, nil
}
