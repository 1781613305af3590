package storage

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// AttrFunc returns the labels and the selectable fields of an object (for
// pods: metadata.name, spec.nodeName, status.phase ...).
type AttrFunc func(obj runtime.Object) (labels.Set, fields.Set, error)

// Predicate selects the objects a list or watch returns. The zero value
// selects everything.
type Predicate struct {
	Label    labels.Selector
	Field    fields.Selector
	GetAttrs AttrFunc
	// Limit caps a list page; 0 means no limit.
	Limit int64
	// Continue is the token from the previous page.
	Continue string
}

// Empty reports whether p selects every object.
func (p Predicate) Empty() bool {
	return (p.Label == nil || p.Label.Empty()) && (p.Field == nil || p.Field.Empty())
}

// Matches reports whether obj passes the label and field selectors.
func (p Predicate) Matches(obj runtime.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	ls, fs, err := p.GetAttrs(obj)
	if err != nil {
		return false, err
	}
	if p.Label != nil && !p.Label.Matches(ls) {
		return false, nil
	}
	if p.Field != nil && !p.Field.Matches(fs) {
		return false, nil
	}
	return true, nil
}

// MatchesSingle returns the name the field selector pins down with
// metadata.name=NAME, so that a single key can be read or watched.
func (p Predicate) MatchesSingle() (string, bool) {
	if p.Field == nil {
		return "", false
	}
	return p.Field.RequiresExactMatch("metadata.name")
}
