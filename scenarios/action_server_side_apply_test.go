package scenarios

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParseServerSideApply(t *testing.T) {
	pod := []*unstructured.Unstructured{decodedPod()}
	manifest := "{manifest: \"" + "apiVersion: v1\\nkind: Pod\\nmetadata: {name: web}\\n" + "\""
	checkParse(t, parseServerSideApply, []parseCase[actionRunner]{
		{name: "kubectl's defaults", key: "serverSideApply", src: manifest + "}", want: &ServerSideApplyAction{Objects: pod, FieldManager: "kubectl"}},
		{name: "manager, forced", key: "serverSideApply", src: manifest + ", fieldManager: team-b, force: true}", want: &ServerSideApplyAction{Objects: pod, FieldManager: "team-b", Force: true}},
		{name: "empty manager", key: "serverSideApply", src: manifest + ", fieldManager: ''}", wantErr: `1:80: serverSideApply.fieldManager: empty (leave it out for kubectl's default, kubectl)`},
		{name: "no manifest", key: "serverSideApply", src: "{force: true}", wantErr: `1:1: serverSideApply: missing field "manifest"`},
	})
}

func TestParseManagedFields(t *testing.T) {
	web := ObjectSpec{Kind: "Deployment", Name: "web", Namespace: "default"}
	checkParse(t, parseManagedFields, []parseCase[Expectation]{
		{name: "owns", key: "managedFields", src: "{kind: Deployment, name: web, manager: kubectl, owns: [.spec.replicas]}",
			want: &ManagedFieldsExpectation{Object: web, Manager: "kubectl", Operation: "Apply", Owns: []string{".spec.replicas"}}},
		{name: "absent update", key: "managedFields", src: "{kind: Deployment, name: web, manager: x, operation: Update, subresource: scale, absent: true}",
			want: &ManagedFieldsExpectation{Object: web, Manager: "x", Operation: "Update", Subresource: "scale", Absent: true}},
		{name: "absent owns nothing", key: "managedFields", src: "{kind: Deployment, name: web, manager: x, owns: [.spec], absent: true}",
			wantErr: `1:66: managedFields.absent: an absent entry owns nothing (leave out owns and notOwns)`},
		{name: "bad operation", key: "managedFields", src: "{kind: Deployment, name: web, manager: x, operation: Patch}",
			wantErr: `1:54: managedFields.operation: "Patch" is not one of Apply, Update`},
	})
}
