package scenarios

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

func TestParsePatch(t *testing.T) {
	web := ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}
	checkParse(t, parsePatch, []parseCase[actionRunner]{
		{name: "strategic by default", key: "patch", src: `{kind: Pod, name: web, patch: '{"metadata":{"labels":{"a":"b"}}}'}`,
			want: &PatchAction{Object: web, Type: "strategic", Patch: `{"metadata":{"labels":{"a":"b"}}}`}},
		{name: "json on status", key: "patch", src: `{kind: Pod, name: web, subresource: status, type: json, patch: '[]'}`,
			want: &PatchAction{Object: web, Subresource: "status", Type: "json", Patch: "[]"}},
		{name: "no patch", key: "patch", src: "{kind: Pod, name: web}", wantErr: `1:1: patch: missing field "patch"`},
		{name: "bad type", key: "patch", src: "{kind: Pod, name: web, type: apply, patch: '{}'}",
			wantErr: `1:30: patch.type: "apply" is not one of strategic, merge, json`},
		{name: "bad subresource", key: "patch", src: "{kind: Pod, name: web, subresource: exec, patch: '{}'}",
			wantErr: `1:37: patch.subresource: "exec" is not one of status, scale`},
		{name: "not JSON", key: "patch", src: "{kind: Pod, name: web, patch: '{a'}", wantErr: `1:31: patch.patch: not valid JSON`},
	})
}

// TestPatchRun: each patch type goes out with its content type, to the
// subresource named, and the result is the response's status.
func TestPatchRun(t *testing.T) {
	for _, tc := range []struct {
		typ, sub string
		want     types.PatchType
	}{
		{"strategic", "", types.StrategicMergePatchType},
		{"merge", "status", types.MergePatchType},
		{"json", "", types.JSONPatchType},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			p, fc := fakePlayer(t, mustUnstructured(t, webPod))
			var sent clienttesting.PatchAction
			fc.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				sent = a.(clienttesting.PatchAction)
				return true, mustUnstructured(t, webPod), nil
			})
			a := &PatchAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}, Subresource: tc.sub, Type: tc.typ, Patch: "{}"}
			res, err := a.run(context.Background(), p, DefaultUser)
			if err != nil || res.Status != 200 {
				t.Fatalf("run: status %d, err %v; want 200", res.Status, err)
			}
			if sent == nil {
				t.Fatal("no patch was sent")
			}
			if sent.GetPatchType() != tc.want || sent.GetSubresource() != tc.sub || string(sent.GetPatch()) != "{}" {
				t.Errorf("sent a %s patch %q to subresource %q, want %s to %q", sent.GetPatchType(), sent.GetPatch(), sent.GetSubresource(), tc.want, tc.sub)
			}
			if got := p.versionsSeen["Pod/default/web"]; len(got) != 1 || got[0] != "7" {
				t.Errorf("versions seen %v, want the response's [7]", got)
			}
		})
	}
}
