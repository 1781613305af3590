package registry_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/warning"
	"sigs.k8s.io/yaml"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// upstreamCase is a write of testdata/upstream/FILE (an update of OLD if
// set, through the status subresource if status) and kube-apiserver's
// answer to it, with the warnings it records first (none if nil).
type upstreamCase struct {
	file, old string
	status    bool
	want      string
	warnings  []string
}

// upstreamCases: each want is what hack/upvaloracle prints for the same
// files (go run ./hack/upvaloracle [-status] [-old OLD] FILE), that is
// kube-apiserver v1.37.2's own decoding, defaulting and registry strategy
// (rest.BeforeCreate / BeforeUpdate) answering the write: "OK", or the
// error's text, and the warnings its strategy recorded (the oracle's
// "FILE\tWarning: TEXT" lines). Issue 27's fidelity table is p01-p11 (p08
// is valid), d01-d04 and s01-s04 (s03 an update). The cases named *w*
// draw warnings: one or more of each kind whose strategy has any.
var upstreamCases = []upstreamCase{
	{file: "as01-badname.yaml", want: "APIService.apiregistration.k8s.io \"v1.wrong.example.com\" is invalid: metadata.name: Invalid value: \"v1.wrong.example.com\": must be `spec.version+\".\"+spec.group`: \"v1.example.com\""},
	{file: "bind01-notarget.yaml", want: `target.name: Required value`},
	{file: "cm01-badkey.yaml", want: `ConfigMap "cm01" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
	{file: "cr01-negrevision.yaml", want: `ControllerRevision.apps "cr01" is invalid: [revision: Invalid value: -1: must be greater than or equal to 0, data: Required value: data is mandatory]`},
	{file: "crb01-rolekind.yaml", want: `ClusterRoleBinding.rbac.authorization.k8s.io "crb01" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value]`},
	{file: "crole01-mixedrule.yaml", want: `ClusterRole.rbac.authorization.k8s.io "crole01" is invalid: rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs`},
	{file: "d01-selmismatch.yaml", want: "Deployment.apps \"d01\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"},
	{file: "d02-negreplicas.yaml", want: `Deployment.apps "d02" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
	{file: "d03-badstrategy.yaml", want: `Deployment.apps "d03" is invalid: spec.strategy: Unsupported value: {"Type":"Sideways","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`},
	{file: "d04-recreate-rolling.yaml", want: "Deployment.apps \"d04\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"},
	{file: "ep01-badip.yaml", want: `Endpoints "ep01" is invalid: [subsets[0].addresses[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff), subsets[0].addresses[0].ip: Invalid value: "not-an-ip": must be a valid IP address]`},
	{file: "eps01-badaddresstype.yaml", want: `EndpointSlice.discovery.k8s.io "eps01" is invalid: addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"`},
	{file: "ev01-otherns.yaml", want: `Event "ev01" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace`},
	{file: "le01-zeroduration.yaml", want: `Lease.coordination.k8s.io "le01" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0`},
	{file: "no01-badpodcidr.yaml", want: `Node "no01" is invalid: spec.podCIDRs[0]: Invalid value: "not-a-cidr": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`},
	{file: "ns01-badname.yaml", want: `Namespace "Bad_NS" is invalid: metadata.name: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
	{file: "p01-nocontainers.yaml", want: `Pod "p01" is invalid: spec.containers: Required value`},
	{file: "p02-badname.yaml", want: `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	{file: "p03-pullpolicy.yaml", want: `Pod "p03" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`},
	{file: "p04-dupnames.yaml", want: `Pod "p04" is invalid: spec.containers[1].name: Duplicate value: "app"`},
	{file: "p05-badport.yaml", want: `Pod "p05" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`},
	{file: "p06-negcpu.yaml", want: `Pod "p06" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: "-100m": must be greater than or equal to 0`},
	{file: "p07-reqgtlimit.yaml", want: `Pod "p07" is invalid: spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi`},
	{file: "p08-neggrace.yaml", want: `OK`},
	{file: "p09-badrestart.yaml", want: `Pod "p09" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`},
	{file: "p10-badmount.yaml", want: `Pod "p10" is invalid: spec.containers[0].volumeMounts[0].name: Not found: "data"`},
	{file: "p11-badprobe.yaml", want: `Pod "p11" is invalid: spec.containers[0].livenessProbe: Required value: must specify a handler type`},
	{file: "rb01-badrefkind.yaml", want: `RoleBinding.rbac.authorization.k8s.io "rb01" is invalid: roleRef.kind: Unsupported value: "Bogus": supported values: "Role", "ClusterRole"`},
	{file: "role01-noverbs.yaml", want: `Role.rbac.authorization.k8s.io "role01" is invalid: rules[0].verbs: Required value`},
	{file: "rs01-restartnever.yaml", want: `ReplicaSet.apps "rs01" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
	{file: "s01-badport.yaml", want: `Service "s01" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`},
	{file: "s02-badtype.yaml", want: `Service "s02" is invalid: spec.type: Unsupported value: "Cluster": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`},
	{file: "s04-nodeport-clusterip.yaml", want: "Service \"s04\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
	{file: "sa01-badname.yaml", want: `ServiceAccount "Bad_SA" is invalid: metadata.name: Invalid value: "Bad_SA": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	{file: "sec01-tlsnokeys.yaml", want: `Secret "sec01" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]`},
	{file: "s03-clusterip-v2.yaml", old: "s03-clusterip-v1.yaml", want: `Service "s03" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.123.45"]: may not change once set`},
	{file: "du01-selector-v2.yaml", old: "du01-selector-v1.yaml", want: `Deployment.apps "du01" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"a"}}: field is immutable`},
	{file: "cmu01-immutable-v2.yaml", old: "cmu01-immutable-v1.yaml", want: "ConfigMap \"cmu01\" is invalid: data: Forbidden: field is immutable when `immutable` is set"},
	{file: "secu01-type-v2.yaml", old: "secu01-type-v1.yaml", want: `Secret "secu01" is invalid: type: Invalid value: "example.com/other": field is immutable`},
	{file: "rbu01-roleref-v2.yaml", old: "rbu01-roleref-v1.yaml", want: `RoleBinding.rbac.authorization.k8s.io "rbu01" is invalid: roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}: field is immutable`},
	{file: "pu01-restartpolicy-v2.yaml", old: "pu01-restartpolicy-v1.yaml", want: `Pod "pu01" is invalid: [spec.activeDeadlineSeconds: Invalid value: -5: must be between 1 and 2147483647, inclusive, spec.activeDeadlineSeconds: Invalid value: -5: must be between 0 and 2147483647, inclusive]`},
	{file: "pst01-badpodip-v2.yaml", old: "pu01-restartpolicy-v1.yaml", status: true, want: `Pod "pu01" is invalid: status.podIPs[0]: Invalid value: "10.244.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`},
	{file: "dst01-negreplicas-v2.yaml", old: "du01-selector-v1.yaml", status: true, want: `Deployment.apps "du01" is invalid: [status.replicas: Invalid value: -2: must be greater than or equal to 0, status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas, status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas]`},
	{file: "svst01-badingress-v2.yaml", old: "s03-clusterip-v1.yaml", status: true, want: "Service \"s03\" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"},
	{file: "rsst01-negready-v2.yaml", old: "rsu01-v1.yaml", status: true, want: `ReplicaSet.apps "rsu01" is invalid: [status.readyReplicas: Invalid value: -1: must be greater than or equal to 0, status.availableReplicas: Invalid value: 0: cannot be greater than readyReplicas]`},
	{file: "nsst01-badphase-v2.yaml", old: "nsu01-v1.yaml", status: true, want: "Namespace \"nsu01\" is invalid: status.Phase: Invalid value: \"Sleeping\": may only be 'Active' if `deletionTimestamp` is empty"},
	{file: "nost01-negcpu-v2.yaml", old: "nou01-v1.yaml", status: true, want: `Node "nou01" is invalid: [status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0, status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0]`},
	{file: "pw01-dotname.yaml", want: "OK", warnings: []string{
		`metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`}},
	{file: "pw02-deprecated.yaml", want: "OK", warnings: []string{
		`spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`,
		`spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod`,
		`metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead`,
		`spec.imagePullSecrets[1].name: duplicate name "reg"`}},
	{file: "dw01-dotname-template.yaml", want: "OK", warnings: []string{
		`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
		`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
		`spec.template.metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead`}},
	{file: "rsw01-dotname.yaml", want: "OK", warnings: []string{
		`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`}},
	{file: "sw01-externalips.yaml", want: "OK", warnings: []string{
		`annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead`,
		`spec.externalIPs[0]: IPv6 address "2001:db8:0:0::1" should be in RFC 5952 canonical format ("2001:db8::1")`,
		`spec.externalIPs is deprecated and may no longer be implemented in some clusters`,
		`spec.externalName is ignored when spec.type is not "ExternalName"`}},
	{file: "secw01-tlsmismatch.yaml", want: "OK", warnings: []string{`tls: failed to find any PEM data in certificate input`}},
	{file: "now01-externalid.yaml", want: "OK", warnings: []string{`spec.externalID: this field is deprecated, and is unused by Kubernetes`}},
	{file: "epw01-ipv6.yaml", want: "OK", warnings: []string{
		`subsets[0].addresses[0].ip: IPv6 address "2001:db8:0:0::5" should be in RFC 5952 canonical format ("2001:db8::5")`,
		`subsets[0].notReadyAddresses[0].ip: IPv6 address "2001:DB8::6" should be in RFC 5952 canonical format ("2001:db8::6")`}},
	{file: "epsw01-fqdn.yaml", want: "OK", warnings: []string{`spec.addressType: FQDN endpoints are deprecated`}},
	{file: "saw01-mountable.yaml", want: "OK", warnings: []string{
		`metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`}},
	{file: "dwu01-v2.yaml", old: "dwu01-v1.yaml", want: "OK", warnings: []string{
		`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`}},
	{file: "swu01-v2.yaml", old: "s03-clusterip-v1.yaml", want: "OK", warnings: []string{
		`spec.externalIPs is deprecated and may no longer be implemented in some clusters`}},
	{file: "saw02-v2.yaml", old: "saw02-v1.yaml", want: "OK"},
	{file: "secw01-tlsmismatch.yaml", old: "secw01-tlsmismatch.yaml", want: "OK", warnings: []string{`tls: failed to find any PEM data in certificate input`}},
	{file: "pstw01-podips-v2.yaml", old: "pu01-restartpolicy-v1.yaml", status: true, want: "OK", warnings: []string{
		`status.podIPs[0].ip: IPv6 address "2001:db8:0:0::9" should be in RFC 5952 canonical format ("2001:db8::9")`}},
	// StatefulSets, DaemonSets, PersistentVolumeClaims, ReplicationControllers (issue 29).
	{file: "sts01-selmismatch.yaml", want: "StatefulSet.apps \"sts01\" is invalid: [spec.podManagementPolicy: Invalid value: \"Sideways\": must be 'OrderedReady' or 'Parallel', spec.serviceName: Invalid value: \"Bad_Service\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.template.metadata.labels: Invalid value: {\"app\":\"db\"}: `selector` does not match template `labels`]"},
	{file: "stsw01-negativehistory.yaml", want: "OK", warnings: []string{
		`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`,
		`spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer`,
		`spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended`}},
	{file: "stsst01-negreplicas-v2.yaml", old: "stsst01-v1.yaml", status: true, want: `StatefulSet.apps "sts02" is invalid: [status.replicas: Invalid value: -2: must be greater than or equal to 0, status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas, status.currentReplicas: Invalid value: 0: cannot be greater than status.replicas, status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas]`},
	{file: "ds01-restartpolicy.yaml", want: `DaemonSet.apps "ds01" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`},
	{file: "dsw01-template.yaml", want: "OK", warnings: []string{
		`spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`}},
	{file: "dswu01-v2.yaml", old: "dswu01-v1.yaml", want: "OK", warnings: []string{
		`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`}},
	{file: "pvc01-badmode.yaml", want: `PersistentVolumeClaim "pvc01" is invalid: [spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes, spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero, spec.volumeMode: Unsupported value: "Sideways": supported values: "Block", "Filesystem"]`},
	{file: "pvcw01-fractional.yaml", want: "OK", warnings: []string{
		`metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead`,
		`spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer`}},
	{file: "rc01-negreplicas.yaml", want: "ReplicationController \"rc01\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`, spec.replicas: Invalid value: -1: must be greater than or equal to 0]"},
	{file: "rcw01-dotname.yaml", want: "OK", warnings: []string{
		`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]`,
		`spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead`}},
}

// TestUpstreamAnswers writes each case through the registry as the API
// handlers do (decode, Default, then the store) and wants kube-apiserver's
// answer and warnings, byte for byte and in order.
func TestUpstreamAnswers(t *testing.T) {
	r := newRegistry(t)
	runAllocator(t, r)
	for _, tc := range upstreamCases {
		name := tc.file
		if tc.old != "" {
			name = tc.old + "->" + tc.file
		}
		t.Run(name, func(t *testing.T) {
			rec := &warningRecorder{}
			got := "OK"
			if err := writeCase(t, warning.WithWarningRecorder(context.Background(), rec), r, tc); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("answer\n got %s\nwant %s", got, tc.want)
			}
			if !slices.Equal(rec.warnings, tc.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", rec.warnings, tc.warnings)
			}
		})
	}
}

// warningRecorder keeps the warnings of a write, each text once, in
// order, as kube-apiserver's WithWarningRecorder and hack/upvaloracle's
// recorder do.
type warningRecorder struct{ warnings []string }

func (r *warningRecorder) AddWarning(_, text string) {
	if !slices.Contains(r.warnings, text) {
		r.warnings = append(r.warnings, text)
	}
}

// upstreamKinds are the resources of the cases' kinds.
var upstreamKinds = map[string]*registry.Resource{
	"Pod": registry.Pods, "Service": registry.Services, "Deployment": registry.Deployments,
	"ReplicaSet": registry.ReplicaSets, "ControllerRevision": registry.ControllerRevisions,
	"ConfigMap": registry.ConfigMaps, "Secret": registry.Secrets, "Endpoints": registry.Endpoints,
	"EndpointSlice": registry.EndpointSlices, "Event": registry.Events, "Namespace": registry.Namespaces,
	"Node": registry.Nodes, "ServiceAccount": registry.ServiceAccounts, "Lease": registry.Leases,
	"Role": registry.Roles, "ClusterRole": registry.ClusterRoles, "RoleBinding": registry.RoleBindings,
	"ClusterRoleBinding": registry.ClusterRoleBindings, "APIService": registry.APIServices,
	"StatefulSet": registry.StatefulSets, "DaemonSet": registry.DaemonSets,
	"PersistentVolumeClaim": registry.PersistentVolumeClaims, "ReplicationController": registry.ReplicationControllers,
}

// writeCase makes the case's write with ctx and returns the registry's
// answer. The old object of an update is created first (without ctx, so
// its warnings are not the case's), unless an earlier case did.
func writeCase(t *testing.T, ctx context.Context, r *registry.Registry, tc upstreamCase) error {
	obj, res := decodeCase(t, tc.file)
	if b, ok := obj.(*corev1.Binding); ok {
		_, err := r.Binder.Bind(ctx, "default", b.Name, b, registry.Options{})
		return err
	}
	ns := ""
	if res.Namespaced {
		ns = "default"
	}
	if tc.old == "" {
		_, err := r.Store(res).Create(ctx, ns, obj, nil, registry.Options{})
		return err
	}
	old, _ := decodeCase(t, tc.old)
	if _, err := r.Store(res).Create(context.Background(), ns, old, nil, registry.Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %s: %v", tc.old, err)
	}
	store := r.Store(res)
	if tc.status {
		store = r.StatusStore(res)
	}
	m, _ := meta.Accessor(obj)
	_, _, err := store.Update(ctx, ns, m.GetName(), replaceWith(obj), nil, nil, registry.Options{})
	return err
}

// decodeCase reads a case's file into its kind and applies the kind's
// defaults, as a request body is.
func decodeCase(t *testing.T, file string) (runtime.Object, *registry.Resource) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", file))
	if err != nil {
		t.Fatal(err)
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		t.Fatal(err)
	}
	if tm.Kind == "Binding" {
		b := &corev1.Binding{}
		if err := yaml.UnmarshalStrict(data, b); err != nil {
			t.Fatal(err)
		}
		return b, nil
	}
	res := upstreamKinds[tm.Kind]
	if res == nil {
		t.Fatalf("%s: kind %q not in upstreamKinds", file, tm.Kind)
	}
	obj := res.NewFunc()
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if res.Default != nil {
		res.Default(obj, true)
	}
	return obj, res
}
