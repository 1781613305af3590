package storage

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// mustContinue returns the continue token of a page of prefix starting
// at key, read at rv.
func mustContinue(tb testing.TB, key, prefix string, rv int64) string {
	tb.Helper()
	tok, err := encodeContinue(key, prefix, rv)
	if err != nil {
		tb.Fatalf("encodeContinue(%q, %q, %d): %v", key, prefix, rv, err)
	}
	return tok
}

func TestPlanList(t *testing.T) {
	const prefix = "/registry/pods/"
	limit := func(n int64) Predicate { return Predicate{Limit: n} }
	tests := []struct {
		name string
		key  string
		opts ListOptions
		want listRead
	}{
		{"latest", prefix, ListOptions{},
			listRead{key: prefix, start: prefix, recursive: true}},
		{"one key", prefix + "default/a", ListOptions{ResourceVersion: "7"},
			listRead{key: prefix + "default/a", start: prefix + "default/a", minRev: 7}},
		{"paged", prefix, ListOptions{Predicate: limit(2)},
			listRead{key: prefix, start: prefix, recursive: true, paging: true}},
		{"exact", prefix, ListOptions{ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			listRead{key: prefix, start: prefix, recursive: true, rev: 7}},
		{"not older than", prefix, ListOptions{ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Predicate: limit(2)},
			listRead{key: prefix, start: prefix, recursive: true, paging: true, minRev: 7}},
		{"legacy, not paged: a lower bound", prefix, ListOptions{ResourceVersion: "7"},
			listRead{key: prefix, start: prefix, recursive: true, minRev: 7}},
		{"legacy, paged: exact", prefix, ListOptions{ResourceVersion: "7", Predicate: limit(2)},
			listRead{key: prefix, start: prefix, recursive: true, paging: true, rev: 7}},
		{"legacy, paged, 0: the latest", prefix, ListOptions{ResourceVersion: "0", Predicate: limit(2)},
			listRead{key: prefix, start: prefix, recursive: true, paging: true}},
		{"continue", prefix, ListOptions{Predicate: Predicate{Limit: 2, Continue: mustContinue(t, prefix+"default/b\x00", prefix, 9)}},
			listRead{key: prefix, start: prefix + "default/b\x00", recursive: true, paging: true, continuing: true, rev: 9}},
		{"continue at the latest, resourceVersion 0", prefix, ListOptions{ResourceVersion: "0", Predicate: Predicate{Limit: 2, Continue: mustContinue(t, prefix+"default/b", prefix, -1)}},
			listRead{key: prefix, start: prefix + "default/b", recursive: true, paging: true, continuing: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := planList(tt.key, tt.opts)
			if err != nil {
				t.Fatalf("planList: %v", err)
			}
			if got != tt.want {
				t.Errorf("planList = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPlanListRejects(t *testing.T) {
	const prefix = "/registry/pods/"
	tests := []struct {
		name       string
		opts       ListOptions
		badRequest bool
	}{
		{"a resourceVersion that is no number", ListOptions{ResourceVersion: "x"}, true},
		{"a negative resourceVersion", ListOptions{ResourceVersion: "-1"}, true},
		{"a continue token that is not one", ListOptions{Predicate: Predicate{Continue: "%%"}}, true},
		{"a continue token whose start key leaves the prefix", ListOptions{Predicate: Predicate{Continue: mustContinue(t, prefix+"../secrets/a", prefix, 3)}}, true},
		{"continue with a resourceVersion", ListOptions{ResourceVersion: "5", Predicate: Predicate{Continue: mustContinue(t, prefix+"a", prefix, 3)}}, true},
		{"an unknown resourceVersionMatch", ListOptions{ResourceVersion: "5", ResourceVersionMatch: "Newest"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planList(prefix, tt.opts)
			if err == nil {
				t.Fatal("planList accepted the options")
			}
			if got := apierrors.IsBadRequest(err); got != tt.badRequest {
				t.Errorf("planList error %v: a 400 is %v, want %v", err, got, tt.badRequest)
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	selective := Predicate{Label: labels.SelectorFromSet(labels.Set{"app": "web"})}
	tests := []struct {
		name string
		pred Predicate
		want int64
	}{
		{"no limit", Predicate{}, 0},
		{"a limit, nothing filtered", Predicate{Limit: 2}, 2},
		{"a limit and a selector: read ahead", Predicate{Label: selective.Label, Limit: 2}, listPageSize},
		{"a limit above the page size and a selector", Predicate{Label: selective.Label, Limit: listPageSize + 1}, listPageSize + 1},
		{"a selector, no limit", selective, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readLimit(tt.pred); got != tt.want {
				t.Errorf("readLimit = %d, want %d", got, tt.want)
			}
		})
	}
}
