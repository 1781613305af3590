// Command upvaloracle prints what kube-apiserver v1.37.2 would answer to
// the create (or, with -old, the update) of each object given, by running
// its own code: the object is decoded with kube-apiserver's scheme (which
// applies the v1 defaults and converts to the internal type), then goes
// through rest.BeforeCreate or rest.BeforeUpdate with the kind's own
// registry strategy (pkg/registry/<group>/<kind>.Strategy: PrepareFor*,
// Validate*, the generic metadata checks, declarative validation), as the
// generic registry store does. It is the measuring stick of issue 27 §2
// (kubesim's answers must be these), run by hand:
//
//	go run ./hack/upvaloracle FILE.yaml...
//	go run ./hack/upvaloracle -old STORED.yaml NEW.yaml
//	go run ./hack/upvaloracle -status -old STORED.yaml NEW.yaml
//
// -status validates an update through the kind's status strategy.
// Services get what the service REST's beginCreate and beginUpdate do
// before validation (allocate, patchAllocatedValues, normalizeClusterIPs:
// see allocate and keepAllocated). A Binding gets what the pods/binding
// REST does (ValidatePodBinding, answered as an aggregate error). It
// prints one answer per file: with -kubectl as kubectl prints an Invalid
// status, else the error's text (or OK). Before it come the warnings the
// strategy's WarningsOnCreate or WarningsOnUpdate recorded in the request's
// context (rest.BeforeCreate and BeforeUpdate add them with
// warning.AddWarning), deduplicated as kube-apiserver's recorder
// (WithWarningRecorder) does: "FILE\tWarning: TEXT" each, or, with
// -kubectl, "Warning: TEXT" as kubectl prints them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kube-aggregator/pkg/registry/apiservice"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	"k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"sigs.k8s.io/yaml"
)

// strategies are the kinds' strategies: main, then status (nil: none).
var strategies = map[string][2]rest.RESTUpdateStrategy{
	"Pod":                   {pod.Strategy, pod.StatusStrategy},
	"Service":               {service.Strategy, service.StatusStrategy},
	"Deployment":            {deployment.Strategy, deployment.StatusStrategy},
	"ReplicaSet":            {replicaset.Strategy, replicaset.StatusStrategy},
	"ControllerRevision":    {controllerrevision.Strategy},
	"StatefulSet":           {statefulset.Strategy, statefulset.StatusStrategy},
	"DaemonSet":             {daemonset.Strategy, daemonset.StatusStrategy},
	"PersistentVolumeClaim": {persistentvolumeclaim.Strategy, persistentvolumeclaim.StatusStrategy},
	"ReplicationController": {replicationcontroller.Strategy, replicationcontroller.StatusStrategy},
	"ConfigMap":             {configmap.Strategy},
	"Secret":                {secret.Strategy},
	"Endpoints":             {endpoint.Strategy},
	"EndpointSlice":         {endpointslice.Strategy},
	"Event":                 {event.Strategy},
	"Namespace":             {namespace.Strategy, namespace.StatusStrategy},
	"Node":                  {node.Strategy, node.StatusStrategy},
	"ServiceAccount":        {serviceaccount.Strategy},
	"Lease":                 {lease.Strategy},
	"Role":                  {role.Strategy},
	"ClusterRole":           {clusterrole.Strategy},
	"RoleBinding":           {rolebinding.Strategy},
	"ClusterRoleBinding":    {clusterrolebinding.Strategy},
	"APIService":            {apiservice.NewStrategy(aggregatorscheme.Scheme), apiservice.NewStatusStrategy(aggregatorscheme.Scheme)},
}

func main() {
	old := flag.String("old", "", "the stored object (JSON or YAML): validate each file as an update of it")
	status := flag.Bool("status", false, "validate the update with the kind's status strategy")
	kubectl := flag.Bool("kubectl", false, "print what kubectl apply prints for each answer")
	flag.Parse()
	for _, f := range flag.Args() {
		rec := &recorder{}
		ctx := warning.WithWarningRecorder(context.Background(), rec)
		err := answer(ctx, f, *old, *status)
		for _, w := range rec.warnings {
			if *kubectl {
				fmt.Printf("Warning: %s\n", w)
			} else {
				fmt.Printf("%s\tWarning: %s\n", f, w)
			}
		}
		switch {
		case *kubectl:
			fmt.Printf("== %s\n%s", f, kubectlText(err))
		case err == nil:
			fmt.Printf("%s\tOK\n", f)
		default:
			fmt.Printf("%s\t%s\n", f, err)
		}
	}
}

// kubectlText is kubectl's rendering of an Invalid status: "The KIND
// "NAME" is invalid: " and the causes as "field: message", on the same
// line if there is one, else each on its own line after "* ".
func kubectlText(err error) string {
	var se *apierrors.StatusError
	if err == nil {
		return "OK\n"
	}
	if !errors.As(err, &se) || se.Status().Details == nil || se.Status().Reason != metav1.StatusReasonInvalid {
		return err.Error() + "\n"
	}
	d := se.Status().Details
	var causes []string
	for _, c := range d.Causes {
		causes = append(causes, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	prefix := fmt.Sprintf("The %s %q is invalid: ", d.Kind, d.Name)
	if len(causes) == 1 {
		return prefix + causes[0] + "\n"
	}
	return prefix + "\n* " + strings.Join(causes, "\n* ") + "\n"
}

// recorder keeps the warnings added to a request's context, each text
// once, in order, as kube-apiserver's WithWarningRecorder
// (k8s.io/apiserver/pkg/endpoints/filters/warning.go) writes them to the
// response (its 4096-rune truncation aside: none of ours come close).
type recorder struct{ warnings []string }

func (r *recorder) AddWarning(agent, text string) {
	if !slices.Contains(r.warnings, text) {
		r.warnings = append(r.warnings, text)
	}
}

// answer returns kube-apiserver's answer to a write of the object in
// file: nil, a status error, or a decode error. ctx carries the warning
// recorder.
func answer(ctx context.Context, file, oldFile string, status bool) error {
	obj, gvk, err := load(file)
	if err != nil {
		return fmt.Errorf("decode error: %w", err)
	}
	if b, ok := obj.(*core.Binding); ok {
		return bind(b)
	}
	st, ok := strategies[gvk.Kind]
	if !ok || (status && st[1] == nil) {
		return fmt.Errorf("kind %q not handled", gvk.Kind)
	}
	strategy := st[0]
	if status {
		strategy = st[1]
	}
	m, _ := meta.Accessor(obj)
	ns := ""
	if strategy.NamespaceScoped() {
		if m.GetNamespace() == "" {
			m.SetNamespace("default")
		}
		ns = m.GetNamespace()
	}
	ctx = genericapirequest.WithNamespace(ctx, ns)
	// Event validation and declarative validation read the request's version.
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{APIGroup: gvk.Group, APIVersion: gvk.Version})
	if oldFile == "" {
		return create(ctx, strategy, obj, m)
	}
	old, _, err := load(oldFile)
	if err != nil {
		return fmt.Errorf("decode error (old): %w", err)
	}
	return update(ctx, st[0].(rest.RESTCreateStrategy), strategy, obj, old, m)
}

// update is what the generic store's Update does before it writes, with
// old made to look stored (created through main: a namespace, a
// resourceVersion, main's PrepareForCreate, what the service REST
// allocated) and an unconditional update's resourceVersion taken from it,
// as every kind here allows.
func update(ctx context.Context, main rest.RESTCreateStrategy, strategy rest.RESTUpdateStrategy, obj, old runtime.Object, m metav1.Object) error {
	main.PrepareForCreate(ctx, old)
	om, _ := meta.Accessor(old)
	om.SetNamespace(m.GetNamespace())
	if om.GetResourceVersion() == "" {
		om.SetResourceVersion("1")
	}
	rest.FillObjectMetaSystemFields(om)
	if m.GetResourceVersion() == "" {
		m.SetResourceVersion(om.GetResourceVersion())
	}
	if s, ok := obj.(*core.Service); ok {
		allocate(old.(*core.Service))
		keepAllocated(s, old.(*core.Service))
	}
	return rest.BeforeUpdate(strategy, ctx, obj, old)
}

// create is what the generic store's Create does before it writes.
func create(ctx context.Context, strategy rest.RESTUpdateStrategy, obj runtime.Object, m metav1.Object) error {
	if s, ok := obj.(*core.Service); ok {
		allocate(s)
	}
	rest.FillObjectMetaSystemFields(m)
	return rest.BeforeCreate(strategy.(rest.RESTCreateStrategy), ctx, obj)
}

// bind is the check of the pods/binding REST's Create: the validation
// errors as an aggregate, which kube-apiserver answers with a 500.
func bind(b *core.Binding) error {
	if errs := corevalidation.ValidatePodBinding(b); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}

// load decodes a file with kube-apiserver's codecs: the object comes out
// defaulted and in its internal version.
func load(file string) (runtime.Object, schema.GroupVersionKind, error) {
	var tm metav1.TypeMeta
	data, err := os.ReadFile(file)
	if err == nil {
		data, err = yaml.YAMLToJSON(data)
	}
	if err == nil {
		err = yaml.Unmarshal(data, &tm)
	}
	if err != nil {
		return nil, schema.GroupVersionKind{}, err
	}
	codecs := legacyscheme.Codecs
	if tm.GroupVersionKind().Group == "apiregistration.k8s.io" {
		codecs = serializer.NewCodecFactory(aggregatorscheme.Scheme)
	}
	obj, _, err := codecs.UniversalDecoder().Decode(data, nil, nil)
	return obj, tm.GroupVersionKind(), err
}

// allocate does what the service REST's beginCreate does before
// validation for a cluster-IP service: normalizeClusterIPs, then an
// address from the service CIDR if it has none (the address is a
// stand-in) and IPv4 single stack.
func allocate(s *core.Service) {
	if s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
	}
	if s.Spec.Type == core.ServiceTypeExternalName {
		return
	}
	if len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.96.0.10", []string{"10.96.0.10"}
	}
	if s.Spec.IPFamilyPolicy == nil {
		single := core.IPFamilyPolicySingleStack
		s.Spec.IPFamilyPolicy = &single
	}
	if len(s.Spec.IPFamilies) == 0 {
		s.Spec.IPFamilies = []core.IPFamily{core.IPv4Protocol}
	}
}

// keepAllocated is the part of the service REST's beginUpdate that runs
// before validation (patchAllocatedValues, normalizeClusterIPs) for the
// cluster IPs: a missing cluster IP is taken from the stored object, and
// a changed clusterIP with unchanged clusterIPs replaces clusterIPs.
func keepAllocated(s, old *core.Service) {
	if s.Spec.Type != core.ServiceTypeExternalName && old.Spec.Type != core.ServiceTypeExternalName {
		if s.Spec.ClusterIP == "" {
			s.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(s.Spec.ClusterIPs) == 0 {
			s.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	same := len(s.Spec.ClusterIPs) == len(old.Spec.ClusterIPs)
	for i := range s.Spec.ClusterIPs {
		same = same && s.Spec.ClusterIPs[i] == old.Spec.ClusterIPs[i]
	}
	if s.Spec.ClusterIP != old.Spec.ClusterIP && s.Spec.ClusterIP != "" && same {
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
	}
	if s.Spec.IPFamilyPolicy == nil {
		s.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
	}
	if len(s.Spec.IPFamilies) == 0 {
		s.Spec.IPFamilies = old.Spec.IPFamilies
	}
}
