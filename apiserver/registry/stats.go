package registry

import (
	"context"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectCount is how many objects of one resource etcd holds.
type ObjectCount struct {
	Resource schema.GroupResource
	Count    int64
	// Err is why the count could not be read (Count is then 0).
	Err error
}

// CountObjects counts the stored objects of every built-in resource,
// once per resource however many versions serve it, in the order of
// their names. Each count is one count-only read of etcd.
func (r *Registry) CountObjects(ctx context.Context) []ObjectCount {
	byResource := map[schema.GroupResource]*Store{}
	for _, st := range r.stores {
		byResource[st.storage.GroupResource()] = st
	}
	var out []ObjectCount
	for _, gr := range slices.SortedFunc(maps.Keys(byResource), func(a, b schema.GroupResource) int {
		if a.Group != b.Group {
			return strings.Compare(a.Group, b.Group)
		}
		return strings.Compare(a.Resource, b.Resource)
	}) {
		n, err := byResource[gr].storage.Count(ctx)
		out = append(out, ObjectCount{Resource: gr, Count: n, Err: err})
	}
	return out
}
