package scenarios_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/scenarios"
)

// TestReflectorRelistsAtItsResourceVersion runs client-go's own
// Reflector against a lister-watcher that plays the API server's part,
// and checks what watch-resume-410's relist steps say of it: after a
// watch ended with 410 Expired, the reflector lists again at the
// resourceVersion it last synced, not with none; only when that list
// (or watch-list) is itself refused with 410 does it ask with no
// resourceVersion. Then it checks that the lesson's relist steps send
// that resourceVersion.
func TestReflectorRelistsAtItsResourceVersion(t *testing.T) {
	t.Run("list", func(t *testing.T) {
		// A lister-watcher without watch-list semantics: the reflector lists.
		got := runReflector(t, &fakeLW{noWatchList: true}, 5)
		want := []string{`list rv="0"`, `watch rv="10"`, `list rv="10"`, `list rv=""`, `watch rv="12"`}
		if !slices.Equal(got, want) {
			t.Errorf("requests %q, want %q", got, want)
		}
	})
	t.Run("watch-list", func(t *testing.T) {
		if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
			t.Skip("client-go's WatchListClient is off in this process")
		}
		got := runReflector(t, &fakeLW{}, 3)
		want := []string{`watch-list rv=""`, `watch-list rv="10"`, `watch-list rv=""`}
		if !slices.Equal(got, want) {
			t.Errorf("requests %q, want %q", got, want)
		}
	})
	lesson := libraryScenario(t, "watch-resume-410")
	for _, id := range []string{"relist", "watch-list"} {
		st := stepByID(t, lesson, id)
		a, ok := st.Action.(*scenarios.HTTPAction)
		if !ok || a.ResourceVersionOf == nil || a.ResourceVersionOf.Version != "first" {
			t.Errorf("watch-resume-410 step %s: %+v, want a request at web's first resourceVersion, the one the watch was refused", id, st.Action)
		}
	}
}

// runReflector runs a Reflector on lw until lw has answered n requests
// and returns them.
func runReflector(t *testing.T, lw *fakeLW, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lw.enough, lw.n = make(chan struct{}), n
	r := cache.NewReflector(lw, &corev1.Pod{}, cache.NewStore(cache.MetaNamespaceKeyFunc), 0)
	done := make(chan struct{})
	go func() { defer close(done); r.RunWithContext(ctx) }()
	select {
	case <-lw.enough:
	case <-ctx.Done():
		t.Errorf("the reflector made %q in 2 minutes, want %d requests", lw.requests(), n)
	}
	cancel()
	<-done
	return lw.requests()
}

// fakeLW answers a reflector as an API server whose watch cache lost the
// reflector's history: the first list (or watch-list) at revision 10, a
// watch from 10 ended by an ERROR 410 Expired, then a 410 for the next
// request at 10; a request with no resourceVersion is answered at 12.
type fakeLW struct {
	noWatchList bool
	n           int
	enough      chan struct{}

	mu   sync.Mutex
	reqs []string
}

func (lw *fakeLW) IsWatchListSemanticsUnSupported() bool { return lw.noWatchList }

func (lw *fakeLW) note(what string, opts metav1.ListOptions) int {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.reqs = append(lw.reqs, fmt.Sprintf("%s rv=%q", what, opts.ResourceVersion))
	if len(lw.reqs) == lw.n {
		close(lw.enough)
	}
	return len(lw.reqs)
}

func (lw *fakeLW) requests() []string {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return slices.Clone(lw.reqs)
}

func (lw *fakeLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw *fakeLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

func (lw *fakeLW) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if lw.note("list", opts) == 3 {
		return nil, apierrors.NewResourceExpired("too old resource version: 10 (11)")
	}
	rv := "10"
	if opts.ResourceVersion == "" {
		rv = "12"
	}
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: []corev1.Pod{*pod(rv)}}, nil
}

func (lw *fakeLW) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	what := "watch"
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		what = "watch-list"
	}
	i := lw.note(what, opts)
	w := watch.NewFakeWithChanSize(3, false)
	expired := &apierrors.NewResourceExpired("too old resource version: 10 (11)").ErrStatus
	switch {
	case what == "watch-list" && i == 2:
		return nil, apierrors.NewResourceExpired("too old resource version: 10 (11)")
	case what == "watch-list":
		end := pod("10")
		end.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		w.Add(pod("10"))
		w.Action(watch.Bookmark, end)
		w.Error(expired) // the watch the reflector goes on with ends with 410
	case i == 2:
		w.Error(expired)
	}
	return w, nil
}

func pod(rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: rv}}
}

// libraryScenario is the library's scenario name.
func libraryScenario(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatalf("Library: %v", err)
	}
	for _, s := range lib {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %s in the library", name)
	return nil
}

// stepByID is s's step with id.
func stepByID(t *testing.T, s *scenarios.Scenario, id string) *scenarios.Step {
	t.Helper()
	for i := range s.Steps {
		if s.Steps[i].ID == id {
			return s.Steps[i]
		}
	}
	t.Fatalf("%s has no step %s", s.Name, id)
	return nil
}
