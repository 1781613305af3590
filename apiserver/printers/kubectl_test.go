package printers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestKubectlPrintsTables serves the handlers' tables to the real kubectl and
// compares what it prints with what it prints against a real cluster.
//
// The server is the smallest one kubectl accepts for `get`: legacy discovery
// and list endpoints answering with a Table whose row objects are reduced to
// PartialObjectMetadata, as kube-apiserver does by default (includeObject=Metadata).
func TestKubectlPrintsTables(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not on PATH")
	}

	lists := map[string]runtime.Object{
		"pods":                kubectlPods(),
		"nodes":               kubectlNodes(),
		"events":              kubectlEvents(),
		"leases":              kubectlLeases(),
		"clusterroles":        &rbacv1.ClusterRoleList{Items: []rbacv1.ClusterRole{{ObjectMeta: metav1.ObjectMeta{Name: "admin", CreationTimestamp: metav1.NewTime(time.Date(2025, 5, 20, 7, 30, 15, 0, time.UTC))}}}},
		"rolebindings":        kubectlRoleBindings(),
		"namespaces":          &corev1.NamespaceList{Items: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: ago(400 * day)}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}}},
		"roles":               &rbacv1.RoleList{},
		"clusterrolebindings": &rbacv1.ClusterRoleBindingList{},
	}
	srv := httptest.NewServer(fakeAPIServer(t, lists))
	defer srv.Close()

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	config := "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n  cluster:\n    server: " + srv.URL +
		"\ncontexts:\n- name: sim\n  context:\n    cluster: sim\n    user: sim\n    namespace: default\n" +
		"current-context: sim\nusers:\n- name: sim\n  user: {}\n"
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"get", "pods"}, `
NAME        READY   STATUS             RESTARTS      AGE
web-7d9c    1/1     Running            0             5m
crash-5f6   0/1     CrashLoopBackOff   4 (30s ago)   10m
big         0/1     Pending            0             90s
`},
		{[]string{"get", "pods", "-o", "wide"}, `
NAME        READY   STATUS             RESTARTS      AGE   IP           NODE     NOMINATED NODE   READINESS GATES
web-7d9c    1/1     Running            0             5m    10.244.1.5   node-1   <none>           <none>
crash-5f6   0/1     CrashLoopBackOff   4 (30s ago)   10m   10.244.1.6   node-1   <none>           <none>
big         0/1     Pending            0             90s   <none>       <none>   node-2           <none>
`},
		{[]string{"get", "nodes"}, `
NAME     STATUS                        ROLES           AGE   VERSION
node-1   Ready                         control-plane   25h   v1.32.2
node-2   NotReady,SchedulingDisabled   <none>          10d   v1.32.2
`},
		{[]string{"get", "nodes", "-o", "wide"}, `
NAME     STATUS                        ROLES           AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION             CONTAINER-RUNTIME
node-1   Ready                         control-plane   25h   v1.32.2   172.18.0.2    <none>        Debian GNU/Linux 12 (bookworm)   6.8.0-51-generic (amd64)   containerd://2.0.2
node-2   NotReady,SchedulingDisabled   <none>          10d   v1.32.2   172.18.0.3    <none>        Debian GNU/Linux 12 (bookworm)   6.8.0-51-generic (amd64)   containerd://2.0.2
`},
		{[]string{"get", "ns"}, `
NAME      STATUS   AGE
default   Active   400d
`},
		{[]string{"get", "events"}, `
LAST SEEN   TYPE      REASON      OBJECT          MESSAGE
5m          Normal    Scheduled   pod/web-7d9c    Successfully assigned default/web-7d9c to node-1
30s         Warning   BackOff     pod/crash-5f6   Back-off restarting failed container app in pod crash-5f6_default(0b1c)
`},
		{[]string{"get", "leases", "-A"}, `
NAMESPACE         NAME             HOLDER                      AGE
kube-node-lease   node-1           node-1                      120m
kube-system       kube-scheduler   node-1_5b0c7f0e-3a1d-4c2e   9h
`},
		{[]string{"get", "clusterroles"}, `
NAME    CREATED AT
admin   2025-05-20T07:30:15Z
`},
		{[]string{"get", "rolebindings", "-o", "wide"}, `
NAME        ROLE               AGE   USERS   GROUPS   SERVICEACCOUNTS
read-pods   Role/pod-reader    6m    jane    devs     default/builder
view        ClusterRole/view   3d
`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), waitfor.Bound)
			defer cancel()
			args := append([]string{"--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(dir, "cache")}, tt.args...)
			cmd := exec.CommandContext(ctx, kubectl, args...)
			cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+kubeconfig)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %s: %v\n%s", strings.Join(tt.args, " "), err, out)
			}
			if got, want := trimLines(string(out)), trimLines(tt.want); got != want {
				t.Errorf("kubectl %s printed\n%s\nwant\n%s", strings.Join(tt.args, " "), got, want)
			}
		})
	}
}

// trimLines drops trailing blanks on each line and surrounding blank lines,
// which kubectl's tabwriter and the raw strings above do not agree on.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// fakeAPIServer serves discovery for the listed resources and answers list
// requests with their Table.
func fakeAPIServer(t *testing.T, lists map[string]runtime.Object) http.Handler {
	res := func(name, kind string, namespaced bool) metav1.APIResource {
		return metav1.APIResource{Name: name, Kind: kind, Namespaced: namespaced, Verbs: metav1.Verbs{"get", "list"}}
	}
	discovery := map[string]any{
		"/version": map[string]string{"major": "1", "minor": "37", "gitVersion": "v1.37.2", "platform": "linux/amd64"},
		"/api": &metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
				{ClientCIDR: "0.0.0.0/0", ServerAddress: "127.0.0.1"},
			},
		},
		"/apis": &metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{
				{Name: "coordination.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "coordination.k8s.io/v1", Version: "v1"}},
					PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "coordination.k8s.io/v1", Version: "v1"}},
				{Name: "rbac.authorization.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "rbac.authorization.k8s.io/v1", Version: "v1"}},
					PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "rbac.authorization.k8s.io/v1", Version: "v1"}},
			},
		},
		"/api/v1": &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "v1",
			APIResources: []metav1.APIResource{
				res("pods", "Pod", true), res("nodes", "Node", false), res("events", "Event", true),
				{Name: "namespaces", Kind: "Namespace", ShortNames: []string{"ns"}, Verbs: metav1.Verbs{"get", "list"}},
			},
		},
		"/apis/coordination.k8s.io/v1": &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "coordination.k8s.io/v1",
			APIResources: []metav1.APIResource{res("leases", "Lease", true)},
		},
		"/apis/rbac.authorization.k8s.io/v1": &metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "rbac.authorization.k8s.io/v1",
			APIResources: []metav1.APIResource{
				res("roles", "Role", true), res("rolebindings", "RoleBinding", true),
				res("clusterroles", "ClusterRole", false), res("clusterrolebindings", "ClusterRoleBinding", false),
			},
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if doc, ok := discovery[r.URL.Path]; ok {
			_ = json.NewEncoder(w).Encode(doc)
			return
		}
		resource := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		list, ok := lists[resource]
		if !ok || !strings.Contains(r.Header.Get("Accept"), "as=Table") {
			t.Errorf("unexpected request %s %s (Accept %q)", r.Method, r.URL, r.Header.Get("Accept"))
			http.NotFound(w, r)
			return
		}
		table, err := toTable(list, printers.Options{Now: now})
		if err != nil {
			t.Errorf("toTable(%s): %v", resource, err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		table.APIVersion, table.Kind = "meta.k8s.io/v1", "Table"
		for i := range table.Rows {
			m, err := meta.Accessor(table.Rows[i].Object.Object)
			if err != nil {
				t.Errorf("row object: %v", err)
				continue
			}
			partial := &metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
				ObjectMeta: metav1.ObjectMeta{Name: m.GetName(), Namespace: m.GetNamespace(), CreationTimestamp: m.GetCreationTimestamp()},
			}
			table.Rows[i].Object = runtime.RawExtension{Object: partial}
		}
		_ = json.NewEncoder(w).Encode(table)
	})
}

func kubectlPods() *corev1.PodList {
	return &corev1.PodList{
		ListMeta: metav1.ListMeta{ResourceVersion: "100"},
		Items: []corev1.Pod{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "web-7d9c", Namespace: "default", CreationTimestamp: ago(5 * time.Minute)},
				Spec:       corev1.PodSpec{NodeName: "node-1", Containers: containers("web")},
				Status: corev1.PodStatus{
					Phase: corev1.PodRunning, PodIP: "10.244.1.5",
					Conditions:        []corev1.PodCondition{condition(corev1.PodReady, corev1.ConditionTrue)},
					ContainerStatuses: []corev1.ContainerStatus{runningStatus("web", true)},
				},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "crash-5f6", Namespace: "default", CreationTimestamp: ago(10 * time.Minute)},
				Spec:       corev1.PodSpec{NodeName: "node-1", Containers: containers("app")},
				Status: corev1.PodStatus{
					Phase: corev1.PodRunning, PodIP: "10.244.1.6",
					ContainerStatuses: []corev1.ContainerStatus{restarted(waitingStatus("app", "CrashLoopBackOff"), 4, 30*time.Second)},
				},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: "default", CreationTimestamp: ago(90 * time.Second)},
				Spec:       corev1.PodSpec{Containers: containers("big")},
				Status:     corev1.PodStatus{Phase: corev1.PodPending, NominatedNodeName: "node-2"},
			},
		},
	}
}

func kubectlNodes() *corev1.NodeList {
	info := corev1.NodeSystemInfo{
		KubeletVersion: "v1.32.2", OSImage: "Debian GNU/Linux 12 (bookworm)",
		KernelVersion: "6.8.0-51-generic", Architecture: "amd64", ContainerRuntimeVersion: "containerd://2.0.2",
	}
	return &corev1.NodeList{Items: []corev1.Node{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1", CreationTimestamp: ago(25 * time.Hour), Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{readyCondition(corev1.ConditionTrue)},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.2"}},
				NodeInfo:   info,
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "node-2", CreationTimestamp: ago(10 * day)},
			Spec:       corev1.NodeSpec{Unschedulable: true},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{readyCondition(corev1.ConditionUnknown)},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.3"}},
				NodeInfo:   info,
			},
		},
	}}
}

func kubectlEvents() *corev1.EventList {
	return &corev1.EventList{Items: []corev1.Event{
		{
			ObjectMeta:          metav1.ObjectMeta{Name: "web-7d9c.1", Namespace: "default"},
			InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-7d9c"},
			Reason:              "Scheduled",
			Message:             "Successfully assigned default/web-7d9c to node-1",
			EventTime:           metav1.NewMicroTime(now.Add(-5 * time.Minute)),
			ReportingController: "default-scheduler",
			ReportingInstance:   "default-scheduler-node-1",
			Type:                corev1.EventTypeNormal,
		},
		{
			ObjectMeta:     metav1.ObjectMeta{Name: "crash-5f6.2", Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "crash-5f6", FieldPath: "spec.containers{app}"},
			Reason:         "BackOff",
			Message:        "Back-off restarting failed container app in pod crash-5f6_default(0b1c)",
			Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
			FirstTimestamp: ago(8 * time.Minute),
			LastTimestamp:  ago(30 * time.Second),
			Count:          12,
			Type:           corev1.EventTypeWarning,
		},
	}}
}

func kubectlLeases() *coordinationv1.LeaseList {
	return &coordinationv1.LeaseList{Items: []coordinationv1.Lease{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "node-1", Namespace: "kube-node-lease", CreationTimestamp: ago(2 * time.Hour)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1")},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler", Namespace: "kube-system", CreationTimestamp: ago(9 * time.Hour)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("node-1_5b0c7f0e-3a1d-4c2e")},
		},
	}}
}

func kubectlRoleBindings() *rbacv1.RoleBindingList {
	return &rbacv1.RoleBindingList{Items: []rbacv1.RoleBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "read-pods", Namespace: "default", CreationTimestamp: ago(6 * time.Minute)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "jane"},
				{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"},
				{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "builder"},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "view", Namespace: "default", CreationTimestamp: ago(3 * day)},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		},
	}}
}
