package apiserver

import (
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// Watchers writing the same event in the same form write the same bytes,
// made once: the frame of the second is the first's. Another media type
// is a frame of its own; a Table, which depends on the request, is made
// by each watcher; an event without encodings is encoded every time.
func TestWatchFrameIsSharedPerForm(t *testing.T) {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", ResourceVersion: "7"}}
	ev := storage.Event{Event: watch.Event{Type: watch.Added, Object: pod}, Encodings: &storage.Encodings{}}
	r := httptest.NewRequest("GET", "/api/v1/pods?watch=1", nil)
	json, pb, table := output{mediaType: mediaJSON}, output{mediaType: mediaProtobuf}, output{mediaType: mediaJSON, as: asTable}
	frame := func(ev storage.Event, o output) []byte {
		t.Helper()
		b, err := watchFrameOf(r, ev, o, true)
		if err != nil || len(b) == 0 {
			t.Fatalf("frame in %+v: %q, %v", o, b, err)
		}
		return b
	}
	same := func(a, b []byte) bool { return &a[0] == &b[0] }
	first, second := frame(ev, json), frame(ev, json)
	if !same(first, second) {
		t.Errorf("two JSON frames of one event at %p and %p, want one", first, second)
	}
	if want, _ := watchFrame(r, ev.Event, json, true); string(first) != string(want) {
		t.Errorf("shared frame %q, want %q", first, want)
	}
	if p := frame(ev, pb); same(p, first) || !same(p, frame(ev, pb)) {
		t.Error("protobuf frames: want one of their own, shared")
	}
	if same(frame(ev, table), frame(ev, table)) {
		t.Error("Table frames shared, want one per watcher")
	}
	plain := storage.Event{Event: ev.Event}
	if same(frame(plain, json), frame(plain, json)) {
		t.Error("frames of an event without encodings shared")
	}
}
