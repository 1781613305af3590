// Command upvaloracle prints what kube-apiserver v1.37.2 would answer to
// the create (or, with -old, the update) of each object given, by calling
// its own defaulting, conversion and validation packages the way its
// registry strategies do, and wrapping the field errors as its REST layer
// does (apierrors.NewInvalid). It is the measuring stick of issue 27 §2
// (kubesim's answers must be these), run by hand:
//
//	go run ./hack/upvaloracle FILE.yaml...
//	go run ./hack/upvaloracle -old STORED.json NEW.json
//
// Services get what the service REST's BeginCreate would have allocated
// (a cluster IP, IPv4 single stack) before validation, as upstream
// allocates before it validates. It prints one line per file: the file,
// then "OK" or the message kubectl shows after "Error from server
// (Invalid): ...".
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	upappsv1 "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"sigs.k8s.io/yaml"
)

func main() {
	old := flag.String("old", "", "the stored object (JSON or YAML): validate each file as an update of it")
	kubectl := flag.Bool("kubectl", false, "print what kubectl apply prints for each answer")
	flag.Parse()
	for _, f := range flag.Args() {
		err := answer(f, *old)
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
	if !errors.As(err, &se) || se.Status().Details == nil {
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

// answer returns kube-apiserver's answer to a write of the object in
// file: nil, an Invalid status error, or a decode error.
func answer(file, oldFile string) error {
	obj, err := load(file)
	if err != nil {
		return fmt.Errorf("decode error: %w", err)
	}
	var old runtime.Object
	if oldFile != "" {
		if old, err = load(oldFile); err != nil {
			return fmt.Errorf("decode error (old): %w", err)
		}
	}
	gk, errs := validate(obj, old)
	if len(errs) == 0 {
		return nil
	}
	m, _ := meta.Accessor(obj)
	return apierrors.NewInvalid(gk, m.GetName(), errs)
}

// load decodes a Pod, Deployment or Service and applies the v1 defaults,
// as kube-apiserver's decoder does.
func load(file string) (runtime.Object, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	var obj runtime.Object
	switch tm.Kind {
	case "Pod":
		obj = &corev1.Pod{}
	case "Deployment":
		obj = &appsv1.Deployment{}
	case "Service":
		obj = &corev1.Service{}
	default:
		return nil, fmt.Errorf("kind %q not handled", tm.Kind)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return nil, err
	}
	m, _ := meta.Accessor(obj)
	if m.GetNamespace() == "" {
		m.SetNamespace("default")
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		upcorev1.SetObjectDefaults_Pod(o)
	case *appsv1.Deployment:
		upappsv1.SetObjectDefaults_Deployment(o)
	case *corev1.Service:
		upcorev1.SetObjectDefaults_Service(o)
	}
	return obj, nil
}

// validate converts obj (and old) to the internal types and runs the
// strategy's validation; on create, as rest.ValidateCreate, the generic
// metadata check follows when the strategy found nothing.
func validate(obj, old runtime.Object) (schema.GroupKind, field.ErrorList) {
	var gk schema.GroupKind
	var errs field.ErrorList
	switch o := obj.(type) {
	case *corev1.Pod:
		gk = core.Kind("Pod")
		p := &core.Pod{}
		must(upcorev1.Convert_v1_Pod_To_core_Pod(o, p, nil))
		if old == nil {
			opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, nil, &p.ObjectMeta, nil)
			opts.ResourceIsPod = true
			errs = corevalidation.ValidatePodCreate(p, opts)
			break
		}
		op := &core.Pod{}
		must(upcorev1.Convert_v1_Pod_To_core_Pod(old.(*corev1.Pod), op, nil))
		opts := podutil.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, &op.Spec, &p.ObjectMeta, &op.ObjectMeta)
		opts.ResourceIsPod = true
		errs = corevalidation.ValidatePodUpdate(p, op, opts)
	case *appsv1.Deployment:
		gk = apps.Kind("Deployment")
		d := &apps.Deployment{}
		must(upappsv1.Convert_v1_Deployment_To_apps_Deployment(o, d, nil))
		if old == nil {
			errs = appsvalidation.ValidateDeployment(d, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, nil))
			break
		}
		od := &apps.Deployment{}
		must(upappsv1.Convert_v1_Deployment_To_apps_Deployment(old.(*appsv1.Deployment), od, nil))
		errs = appsvalidation.ValidateDeploymentUpdate(d, od, podutil.GetValidationOptionsFromPodTemplate(&d.Spec.Template, &od.Spec.Template))
	case *corev1.Service:
		gk = core.Kind("Service")
		s := &core.Service{}
		must(upcorev1.Convert_v1_Service_To_core_Service(o, s, nil))
		if old == nil {
			allocate(s)
			errs = corevalidation.ValidateServiceCreate(s)
			break
		}
		stored := &core.Service{}
		must(upcorev1.Convert_v1_Service_To_core_Service(old.(*corev1.Service), stored, nil))
		keepAllocated(s, stored)
		errs = corevalidation.ValidateServiceUpdate(s, stored)
	}
	if old == nil && len(errs) == 0 {
		m, _ := meta.Accessor(obj)
		errs = apimachineryvalidation.ValidateObjectMetaAccessor(m, true, path.ValidatePathSegmentName, field.NewPath("metadata"))
	}
	if old != nil {
		m, _ := meta.Accessor(obj)
		om, _ := meta.Accessor(old)
		common := apimachineryvalidation.ValidateObjectMetaAccessor(m, true, path.ValidatePathSegmentName, field.NewPath("metadata"))
		common = append(common, apimachineryvalidation.ValidateObjectMetaAccessorUpdate(m, om, field.NewPath("metadata"))...)
		errs = append(common, errs...)
	}
	return gk, errs
}

// allocate does what the service REST's BeginCreate does before
// validation for a cluster-IP service without one: IPv4 single stack and
// an address from the service CIDR (the address is a stand-in).
func allocate(s *core.Service) {
	if s.Spec.Type == core.ServiceTypeExternalName {
		return
	}
	if s.Spec.ClusterIP != "" && len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIPs = []string{s.Spec.ClusterIP}
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

// keepAllocated is the part of the service REST's BeginUpdate that runs
// before validation (patchAllocatedValues, normalizeClusterIPs) for the
// cases measured: a missing cluster IP is taken from the stored object,
// and a changed clusterIP with unchanged clusterIPs replaces clusterIPs.
func keepAllocated(s, old *core.Service) {
	if s.Spec.ClusterIP == "" {
		s.Spec.ClusterIP = old.Spec.ClusterIP
	}
	if len(s.Spec.ClusterIPs) == 0 {
		s.Spec.ClusterIPs = old.Spec.ClusterIPs
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

func must(err error) {
	if err != nil {
		panic(err)
	}
}
