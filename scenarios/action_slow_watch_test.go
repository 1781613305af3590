package scenarios

import "testing"

func TestParseSlowWatch(t *testing.T) {
	checkParse(t, parseSlowWatch, []parseCase[actionRunner]{
		{name: "defaults", key: "slowWatch", src: "{lease: slow}",
			want: &SlowWatchAction{Namespace: "default", Lease: "slow", Changes: DefaultSlowChanges, Window: DefaultSlowWindow}},
		{name: "every field", key: "slowWatch", src: "{lease: slow, namespace: team, changes: 30, window: 2048}",
			want: &SlowWatchAction{Namespace: "team", Lease: "slow", Changes: 30, Window: 2048}},
		{name: "no lease", key: "slowWatch", src: "{changes: 3}", wantErr: `1:1: slowWatch: missing field "lease"`},
		{name: "too many changes", key: "slowWatch", src: "{lease: slow, changes: 91}", wantErr: "1:24: slowWatch.changes: 91: use 1 to 90"},
		{name: "window 0", key: "slowWatch", src: "{lease: slow, window: 0}", wantErr: "1:23: slowWatch.window: 0: use 1 to 65535 bytes"},
		{name: "an unknown field", key: "slowWatch", src: "{lease: slow, speed: 2}", wantErr: `1:15: slowWatch: unknown field "speed" (allowed: lease, namespace, changes, window)`},
	})
}

func TestSlowWatchPath(t *testing.T) {
	a := &SlowWatchAction{Namespace: "default", Lease: "slow"}
	want := "/apis/coordination.k8s.io/v1/namespaces/default/leases?fieldSelector=metadata.name%3Dslow&resourceVersion=42&watch=1"
	if got := a.watchPath("42"); got != want {
		t.Errorf("watchPath(42) = %q, want %q", got, want)
	}
}
