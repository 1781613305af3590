package cluster_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// TestKubectlFreshCluster runs the first commands a learner types against
// a cluster that has just started. No command uses --validate=false.
func TestKubectlFreshCluster(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)

	t.Run("get ns", func(t *testing.T) {
		rows := table(k.must(t, "get", "ns"))
		if len(rows) == 0 || joined(rows[0]) != "NAME STATUS AGE" {
			t.Fatalf("got header %q, want %q\n%v", rows, "NAME STATUS AGE", rows)
		}
		var got []string
		for _, r := range rows[1:] {
			if len(r) != 3 {
				t.Errorf("row %q: got %d columns, want 3", joined(r), len(r))
				continue
			}
			if r[1] != "Active" {
				t.Errorf("namespace %s: got STATUS %q, want Active", r[0], r[1])
			}
			got = append(got, r[0])
		}
		want := []string{"default", "kube-node-lease", "kube-public", "kube-system"}
		if !slices.Equal(got, want) {
			t.Errorf("got namespaces %q, want %q", got, want)
		}
	})

	// An empty list prints nothing on stdout and kubectl's message on stderr.
	for _, tt := range []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"get", "nodes"}, "No resources found\n"},
		{[]string{"get", "pods"}, "No resources found in default namespace.\n"},
		{[]string{"get", "events"}, "No resources found in default namespace.\n"},
		{[]string{"get", "leases", "-n", "kube-node-lease"}, "No resources found in kube-node-lease namespace.\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := k.run(t, "", tt.args...)
			if r.err != nil || r.stdout != "" || r.stderr != tt.wantStderr {
				t.Errorf("kubectl %s: got exit %v, stdout %q, stderr %q; want exit 0, stdout \"\", stderr %q",
					strings.Join(tt.args, " "), r.err, r.stdout, r.stderr, tt.wantStderr)
			}
		})
	}
}

// TestKubectlPodLifecycle applies a pod from a file, reapplies it
// unchanged and changed, looks at it in every output kubectl offers, and
// deletes it. The steps build on each other.
func TestKubectlPodLifecycle(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	file := mustWriteFile(t, "pod.yaml", podManifest("web", "nginx:1.27"))

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"apply creates", func(t *testing.T) {
			if got, want := k.must(t, "apply", "-f", file), "pod/web created\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}},
		{"apply again is unchanged", func(t *testing.T) {
			if got, want := k.must(t, "apply", "-f", file), "pod/web unchanged\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}},
		{"apply a new image configures", func(t *testing.T) {
			mustWriteFileAt(t, file, podManifest("web", "nginx:1.28"))
			if got, want := k.must(t, "apply", "-f", file), "pod/web configured\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if got, want := k.must(t, "get", "pod", "web", "-o", "jsonpath={.spec.containers[0].image}"), "nginx:1.28"; got != want {
				t.Errorf("stored image: got %q, want %q", got, want)
			}
		}},
		{"get pods", func(t *testing.T) {
			rows := table(k.must(t, "get", "pods"))
			if len(rows) != 2 {
				t.Fatalf("got %d lines, want header and one pod: %q", len(rows), rows)
			}
			if got, want := joined(rows[0]), "NAME READY STATUS RESTARTS AGE"; got != want {
				t.Errorf("header: got %q, want %q", got, want)
			}
			if len(rows[1]) != 5 {
				t.Fatalf("row %q: got %d columns, want 5", joined(rows[1]), len(rows[1]))
			}
			if got, want := joined(rows[1][:4]), "web 0/1 Pending 0"; got != want {
				t.Errorf("row: got %q, want %q (and an AGE)", got, want)
			}
		}},
		{"get pods -o wide", func(t *testing.T) {
			rows := table(k.must(t, "get", "pods", "-o", "wide"))
			if len(rows) != 2 {
				t.Fatalf("got %d lines, want header and one pod: %q", len(rows), rows)
			}
			if got, want := joined(rows[0]), "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES"; got != want {
				t.Errorf("header: got %q, want %q", got, want)
			}
			// Not scheduled yet: no IP, no node.
			r := rows[1]
			if len(r) != 9 {
				t.Fatalf("row %q: got %d columns, want 9", joined(r), len(r))
			}
			if got, want := joined(r[:4])+" "+joined(r[5:]), "web 0/1 Pending 0 <none> <none> <none> <none>"; got != want {
				t.Errorf("row without AGE: got %q, want %q", got, want)
			}
		}},
		{"get pod -o yaml", func(t *testing.T) {
			out := k.must(t, "get", "pod", "web", "-o", "yaml")
			pod := mustDecodeYAMLStrict[corev1.Pod](t, out)
			checks := []struct {
				field     string
				got, want any
			}{
				{"apiVersion", pod.APIVersion, "v1"},
				{"kind", pod.Kind, "Pod"},
				{"metadata.name", pod.Name, "web"},
				{"metadata.namespace", pod.Namespace, "default"},
				{"metadata.uid is set", pod.UID != "", true},
				{"metadata.creationTimestamp is set", !pod.CreationTimestamp.IsZero(), true},
				{"status.phase", pod.Status.Phase, corev1.PodPending},
				{"status.qosClass", pod.Status.QOSClass, corev1.PodQOSBestEffort},
				{"spec.restartPolicy", pod.Spec.RestartPolicy, corev1.RestartPolicyAlways},
				{"spec.terminationGracePeriodSeconds", deref(pod.Spec.TerminationGracePeriodSeconds), int64(30)},
				{"spec.dnsPolicy", pod.Spec.DNSPolicy, corev1.DNSClusterFirst},
				{"spec.schedulerName", pod.Spec.SchedulerName, "default-scheduler"},
				{"spec.enableServiceLinks", deref(pod.Spec.EnableServiceLinks), true},
				{"spec.nodeName", pod.Spec.NodeName, ""},
				{"spec.containers[0].image", pod.Spec.Containers[0].Image, "nginx:1.28"},
				// A tagged image other than :latest is pulled IfNotPresent.
				{"spec.containers[0].imagePullPolicy", pod.Spec.Containers[0].ImagePullPolicy, corev1.PullIfNotPresent},
				{"spec.containers[0].terminationMessagePath", pod.Spec.Containers[0].TerminationMessagePath, "/dev/termination-log"},
				{"spec.containers[0].terminationMessagePolicy", pod.Spec.Containers[0].TerminationMessagePolicy, corev1.TerminationMessageReadFile},
			}
			for _, chk := range checks {
				if chk.got != chk.want {
					t.Errorf("%s: got %v, want %v", chk.field, chk.got, chk.want)
				}
			}
			if rv, err := strconv.ParseUint(pod.ResourceVersion, 10, 64); err != nil || rv == 0 {
				t.Errorf("metadata.resourceVersion: got %q, want a positive integer (the etcd revision)", pod.ResourceVersion)
			}
			if _, ok := pod.Annotations[corev1.LastAppliedConfigAnnotation]; !ok {
				t.Errorf("metadata.annotations: got %v, want %s (written by kubectl apply)", pod.Annotations, corev1.LastAppliedConfigAnnotation)
			}
		}},
		{"delete pod", func(t *testing.T) {
			if got, want := k.must(t, "delete", "pod", "web"), "pod \"web\" deleted\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if got, want := k.mustFail(t, "get", "pod", "web"), "Error from server (NotFound): pods \"web\" not found\n"; got != want {
				t.Errorf("get after delete: got %q, want %q", got, want)
			}
		}},
		{"an unbound pod is gone at once", func(t *testing.T) {
			// --wait=false: kubectl does not wait for the pod to go, so
			// NotFound right after shows the server deleted it in the
			// DELETE request itself (it has no node to stop it on).
			k.mustWith(t, podManifest("db", "mysql:8"), "apply", "-f", "-")
			if got, want := k.must(t, "delete", "pod", "db", "--wait=false"), "pod \"db\" deleted\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if got, want := k.mustFail(t, "get", "pod", "db"), "Error from server (NotFound): pods \"db\" not found\n"; got != want {
				t.Errorf("get right after delete: got %q, want %q", got, want)
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			t.FailNow() // later steps need this one
		}
	}
}

// TestKubectlGetPodsWatch runs `kubectl get pods -w` (plain and with
// --output-watch-events) while pods are created, labelled and deleted with
// kubectl, and checks the rows it streams, in order.
func TestKubectlGetPodsWatch(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	// A pod that exists before the watch: its row, printed from the
	// initial list, shows the watch is running before anything changes.
	k.mustWith(t, podManifest("web", "nginx:1.27"), "apply", "-f", "-")

	plain := k.start(t, "get", "pods", "-w")
	events := k.start(t, "get", "pods", "-w", "--output-watch-events")
	hasRow := func(first ...string) func([]string) bool {
		return func(lines []string) bool {
			return slices.ContainsFunc(lines, func(l string) bool {
				f := strings.Fields(l)
				return len(f) >= len(first) && slices.Equal(f[:len(first)], first)
			})
		}
	}
	plain.waitFor(t, "row for web", hasRow("web"))
	events.waitFor(t, "row for web", hasRow("ADDED", "web"))

	if got, want := k.must(t, "run", "db", "--image=mysql:8"), "pod/db created\n"; got != want {
		t.Errorf("kubectl run: got %q, want %q", got, want)
	}
	if got, want := k.must(t, "label", "pod", "db", "tier=backend"), "pod/db labeled\n"; got != want {
		t.Errorf("kubectl label: got %q, want %q", got, want)
	}
	if got, want := k.must(t, "delete", "pod", "db"), "pod \"db\" deleted\n"; got != want {
		t.Errorf("kubectl delete: got %q, want %q", got, want)
	}

	// Deleting a pod that has no node sets its deletionTimestamp (a
	// MODIFIED event, shown Terminating) and removes it at once (DELETED).
	tests := []struct {
		name    string
		stream  *lineStream
		nameCol int // index of the NAME column
		header  string
		wantWeb string
		wantDB  []string // the rows of db, without AGE
	}{
		{"plain", plain, 0, "NAME READY STATUS RESTARTS AGE", "web 0/1 Pending 0", []string{
			"db 0/1 Pending 0",
			"db 0/1 Pending 0",
			"db 0/1 Terminating 0",
			"db 0/1 Terminating 0",
		}},
		{"output-watch-events", events, 1, "EVENT NAME READY STATUS RESTARTS AGE", "ADDED web 0/1 Pending 0", []string{
			"ADDED db 0/1 Pending 0",
			"MODIFIED db 0/1 Pending 0",
			"MODIFIED db 0/1 Terminating 0",
			"DELETED db 0/1 Terminating 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbRows := func(lines []string) []string {
				var rows []string
				for _, l := range lines {
					if f := strings.Fields(l); len(f) > tt.nameCol && f[tt.nameCol] == "db" {
						rows = append(rows, joined(f[:len(f)-1])) // drop AGE
					}
				}
				return rows
			}
			lines := tt.stream.waitFor(t, "last row of db", func(lines []string) bool { return len(dbRows(lines)) >= len(tt.wantDB) })
			if len(lines) == 0 || joined(strings.Fields(lines[0])) != tt.header {
				t.Errorf("first line: got %q, want the header %q", lines, tt.header)
			}
			if len(lines) < 2 || firstFields(strings.Fields(lines[1]), len(strings.Fields(tt.wantWeb))) != tt.wantWeb {
				t.Errorf("second line: got %q, want %q and an AGE", lines, tt.wantWeb)
			}
			if got := dbRows(lines); !slices.Equal(got, tt.wantDB) {
				t.Errorf("rows of db (without AGE):\ngot  %q\nwant %q\nall lines:\n%s", got, tt.wantDB, strings.Join(lines, "\n"))
			}
			if len(lines) != 2+len(tt.wantDB) {
				t.Errorf("got %d lines, want the header, web's row and %d rows of db:\n%s", len(lines), len(tt.wantDB), strings.Join(lines, "\n"))
			}
			if _, stderr := tt.stream.snapshot(); stderr != "" {
				t.Errorf("stderr: got %q, want nothing", stderr)
			}
			for _, l := range lines {
				if n := len(strings.Fields(l)); n != len(strings.Fields(tt.header)) {
					t.Errorf("line %q: got %d columns, want %d as in the header", l, n, len(strings.Fields(tt.header)))
				}
			}
		})
	}
}

// TestKubectlExplain reads field documentation from the OpenAPI v3
// document the server publishes.
func TestKubectlExplain(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	out := k.must(t, "explain", "pod.spec.containers")
	for _, want := range []string{
		"KIND:       Pod\n",
		"VERSION:    v1\n",
		"FIELD: containers <[]Container>\n",
		"DESCRIPTION:\n    List of containers belonging to the pod.",
		"FIELDS:\n",
		"\n  image\t<string>\n",
		"\n  name\t<string> -required-\n",
		"\n  ports\t<[]ContainerPort>\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl explain pod.spec.containers: output lacks %q\ngot:\n%s", want, out)
		}
	}
}

// TestKubectlErrors checks that what the server refuses reaches kubectl
// with kube-apiserver's reason and message.
func TestKubectlErrors(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	tests := []struct {
		args []string
		want string // stderr
	}{
		{[]string{"get", "pods", "--field-selector", "spec.image=x"},
			`Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.image=x": field label not supported: spec.image` + "\n"},
		{[]string{"get", "pod", "nope"}, `Error from server (NotFound): pods "nope" not found` + "\n"},
		{[]string{"get", "ns", "nope"}, `Error from server (NotFound): namespaces "nope" not found` + "\n"},
		{[]string{"delete", "ns", "default"}, `Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted` + "\n"},
		{[]string{"delete", "ns", "kube-system"}, `Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted` + "\n"},
		{[]string{"delete", "ns", "kube-public"}, `Error from server (Forbidden): namespaces "kube-public" is forbidden: this namespace may not be deleted` + "\n"},
		{[]string{"run", "x", "--image=nginx", "-n", "nope"}, `Error from server (NotFound): namespaces "nope" not found` + "\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			if got := k.mustFail(t, tt.args...); got != tt.want {
				t.Errorf("stderr:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
	// The refused deletions left the namespaces alone.
	if got, want := k.must(t, "get", "ns", "default", "kube-system", "kube-public", "-o", "jsonpath={.items[*].status.phase}"), "Active Active Active"; got != want {
		t.Errorf("phases after the refused deletions: got %q, want %q", got, want)
	}
}

// TestKubectlNamespaceLifecycle creates a namespace and deletes it: it
// goes Terminating while something in it still exists, refuses new
// content, and disappears once it is empty. Emptying it is the
// controller manager's namespace controller's work, so this test runs
// one beside the API server.
func TestKubectlNamespaceLifecycle(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	if err := c.StartControllerManager(); err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, c)

	// kubectl's typed client sends this create as protobuf
	// (application/vnd.kubernetes.protobuf).
	if got, want := k.must(t, "create", "ns", "team"), "namespace/team created\n"; got != want {
		t.Fatalf("kubectl create ns team: got %q, want %q", got, want)
	}
	if got, want := table(k.must(t, "get", "ns", "team")), "team Active"; len(got) != 2 || firstFields(got[1], 2) != want {
		t.Fatalf("kubectl get ns team: got %q, want a row %q", got, want)
	}
	// A finalizer nobody removes but us keeps the pod, and so the
	// namespace, around after the deletion starts.
	held := `apiVersion: v1
kind: Pod
metadata:
  name: held
  namespace: team
  finalizers: ["example.com/hold"]
spec:
  containers:
  - name: app
    image: busybox:1.36
`
	if got, want := k.mustWith(t, held, "apply", "-f", "-"), "pod/held created\n"; got != want {
		t.Fatalf("apply: got %q, want %q", got, want)
	}

	if got, want := k.must(t, "delete", "ns", "team", "--wait=false"), "namespace \"team\" deleted\n"; got != want {
		t.Errorf("kubectl delete ns team: got %q, want %q", got, want)
	}
	if got := table(k.must(t, "get", "ns", "team")); len(got) != 2 || firstFields(got[1], 2) != "team Terminating" {
		t.Fatalf("right after delete: got %q, want a row \"team Terminating\"", got)
	}
	// The namespace controller deletes the pod; the finalizer keeps it.
	// (The pod GC then marks it Failed, as it does every unscheduled pod
	// being deleted, and kubectl shows a terminal pod's phase, not
	// Terminating: so the test reads the deletionTimestamp.)
	eventually(t, "pod held being deleted", func() (bool, string) {
		out := k.must(t, "get", "pod", "held", "-n", "team", "-o", "jsonpath={.metadata.deletionTimestamp}")
		return out != "", out
	})
	if got, want := k.mustFail(t, "run", "late", "-n", "team", "--image=nginx"),
		`Error from server (Forbidden): pods "late" is forbidden: unable to create new content in namespace team because it is being terminated`+"\n"; got != want {
		t.Errorf("creating in a terminating namespace:\ngot  %q\nwant %q", got, want)
	}
	if got := table(k.must(t, "get", "ns", "team")); len(got) != 2 || firstFields(got[1], 2) != "team Terminating" {
		t.Fatalf("while the pod is held: got %q, want a row \"team Terminating\"", got)
	}

	if got, want := k.must(t, "patch", "pod", "held", "-n", "team", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`), "pod/held patched\n"; got != want {
		t.Errorf("kubectl patch: got %q, want %q", got, want)
	}
	eventually(t, "namespace team gone", func() (bool, string) {
		r := k.run(t, "", "get", "ns", "team")
		return r.err != nil && r.stderr == "Error from server (NotFound): namespaces \"team\" not found\n", r.stdout + r.stderr
	})
	if got := k.must(t, "get", "ns", "-o", "jsonpath={.items[*].metadata.name}"); got != "default kube-node-lease kube-public kube-system" {
		t.Errorf("namespaces left: got %q, want the four bootstrap ones", got)
	}

	// Without --wait=false, kubectl delete returns once the (empty)
	// namespace is gone.
	k.mustWith(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: empty\n", "create", "-f", "-")
	if got, want := k.must(t, "delete", "ns", "empty"), "namespace \"empty\" deleted\n"; got != want {
		t.Errorf("kubectl delete ns empty: got %q, want %q", got, want)
	}
	if got, want := k.mustFail(t, "get", "ns", "empty"), "Error from server (NotFound): namespaces \"empty\" not found\n"; got != want {
		t.Errorf("after kubectl delete returned: got %q, want %q", got, want)
	}
}

// mustDecodeYAMLStrict decodes kubectl's YAML into a T, failing on any
// field T does not have.
func mustDecodeYAMLStrict[T any](tb testing.TB, y string) T {
	tb.Helper()
	var v T
	j, err := utilyaml.ToJSON([]byte(y))
	if err != nil {
		tb.Fatalf("YAML: %v\n%s", err, y)
	}
	dec := json.NewDecoder(strings.NewReader(string(j)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decode %T: %v\n%s", v, err, y)
	}
	return v
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
