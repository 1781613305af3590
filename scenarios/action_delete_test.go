package scenarios

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

func TestParseDelete(t *testing.T) {
	web := ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}
	zero := int64(0)
	foreground := metav1.DeletePropagationForeground
	checkParse(t, parseDelete, []parseCase[actionRunner]{
		{name: "plain", key: "delete", src: "{kind: Pod, name: web}", want: &DeleteAction{Object: web}},
		{name: "grace and wait", key: "delete", src: "{kind: Pod, name: web, namespace: team, gracePeriodSeconds: 0, wait: true}",
			want: &DeleteAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "team"}, GracePeriodSeconds: &zero, Wait: true}},
		{name: "negative grace", key: "delete", src: "{kind: Pod, name: web, gracePeriodSeconds: -1}",
			wantErr: `1:44: delete.gracePeriodSeconds: -1 is negative`},
		{name: "wait not a bool", key: "delete", src: "{kind: Pod, name: web, wait: 1}",
			wantErr: `1:30: delete.wait: expected true or false, got a number (1)`},
		{name: "propagation policy", key: "delete", src: "{kind: Deployment, name: web, propagationPolicy: Foreground}",
			want: &DeleteAction{Object: ObjectSpec{Kind: "Deployment", Name: "web", Namespace: "default"}, PropagationPolicy: &foreground}},
		{name: "bad propagation policy", key: "delete", src: "{kind: Deployment, name: web,\n  propagationPolicy: foreground}",
			wantErr: `2:22: delete.propagationPolicy: "foreground" is not one of Background, Foreground, Orphan`},
		{name: "unknown kind", key: "delete", src: "{kind: Widget, name: web}",
			wantErr: `1:8: delete.kind: unknown kind "Widget" (known: ` + strings.Join(kindNames, ", ") + `)`},
	})
}

func TestDeleteRun(t *testing.T) {
	web := ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}
	for _, tc := range []struct {
		name       string
		action     *DeleteAction
		forbid     bool
		wantVerbs  string
		wantStatus int
		wantMsg    string
		wantErr    bool
	}{
		{name: "no wait", action: &DeleteAction{Object: web}, wantVerbs: "delete", wantStatus: 200},
		{name: "wait until gone", action: &DeleteAction{Object: web, Wait: true}, wantVerbs: "delete get", wantStatus: 200, wantMsg: "Pod default/web deleted"},
		{name: "forbidden", action: &DeleteAction{Object: web, Wait: true}, forbid: true, wantVerbs: "delete", wantStatus: 403, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, fc := fakePlayer(t, mustUnstructured(t, webPod))
			if tc.forbid {
				fc.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web", errors.New("no"))
				})
			}
			res, err := tc.action.run(context.Background(), p, DefaultUser)
			if (err != nil) != tc.wantErr {
				t.Errorf("err %v, want error %v", err, tc.wantErr)
			}
			if got := verbs(fc); got != tc.wantVerbs {
				t.Errorf("requests %q, want %q", got, tc.wantVerbs)
			}
			if res.Status != tc.wantStatus || (tc.wantMsg != "" && res.Message != tc.wantMsg) {
				t.Errorf("result %d %q, want %d %q", res.Status, res.Message, tc.wantStatus, tc.wantMsg)
			}
		})
	}
}

// TestDeletePropagationSent: the policy goes in the request's
// DeleteOptions, as kubectl delete --cascade=orphan sends it.
func TestDeletePropagationSent(t *testing.T) {
	orphan := metav1.DeletePropagationOrphan
	p, fc := fakePlayer(t, mustUnstructured(t, webPod))
	a := &DeleteAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}, PropagationPolicy: &orphan}
	if _, err := a.run(context.Background(), p, DefaultUser); err != nil {
		t.Fatal(err)
	}
	if got := a.String(); got != "delete Pod default/web --cascade=orphan" {
		t.Errorf("String() = %q", got)
	}
	for _, act := range fc.Actions() {
		if d, ok := act.(clienttesting.DeleteActionImpl); ok {
			if got := d.GetDeleteOptions().PropagationPolicy; got == nil || *got != orphan {
				t.Errorf("propagationPolicy sent: %v, want Orphan", got)
			}
			return
		}
	}
	t.Errorf("no delete sent: %v", fc.Actions())
}
