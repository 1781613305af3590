package registry

import (
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Scheme knows every type the server reads or writes.
var Scheme = runtime.NewScheme()

// GroupVersions lists the group-versions the server serves, core first.
var GroupVersions = []schema.GroupVersion{
	corev1.SchemeGroupVersion, appsv1.SchemeGroupVersion, coordinationv1.SchemeGroupVersion,
	discoveryv1.SchemeGroupVersion, rbacv1.SchemeGroupVersion,
	authenticationv1.SchemeGroupVersion, authorizationv1.SchemeGroupVersion, autoscalingv1.SchemeGroupVersion,
	autoscalingv2.SchemeGroupVersion, batchv1.SchemeGroupVersion, policyv1.SchemeGroupVersion, storagev1.SchemeGroupVersion,
	apiextensionsv1.SchemeGroupVersion, apiregistrationv1.SchemeGroupVersion,
	schedulingv1.SchemeGroupVersion,
	certificatesv1.SchemeGroupVersion, eventsv1.SchemeGroupVersion, networkingv1.SchemeGroupVersion,
}

func init() {
	utilruntime.Must(corev1.AddToScheme(Scheme))
	utilruntime.Must(coordinationv1.AddToScheme(Scheme))
	utilruntime.Must(appsv1.AddToScheme(Scheme))
	utilruntime.Must(discoveryv1.AddToScheme(Scheme))
	utilruntime.Must(authenticationv1.AddToScheme(Scheme))
	utilruntime.Must(autoscalingv1.AddToScheme(Scheme))
	utilruntime.Must(autoscalingv2.AddToScheme(Scheme))
	utilruntime.Must(batchv1.AddToScheme(Scheme))
	utilruntime.Must(policyv1.AddToScheme(Scheme))
	utilruntime.Must(rbacv1.AddToScheme(Scheme))
	utilruntime.Must(schedulingv1.AddToScheme(Scheme))
	utilruntime.Must(storagev1.AddToScheme(Scheme))
	utilruntime.Must(authorizationv1.AddToScheme(Scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(Scheme))
	utilruntime.Must(apiregistrationv1.AddToScheme(Scheme))
	utilruntime.Must(certificatesv1.AddToScheme(Scheme))
	utilruntime.Must(eventsv1.AddToScheme(Scheme))
	utilruntime.Must(networkingv1.AddToScheme(Scheme))
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	// Option types (DeleteOptions...) are also accepted as meta.k8s.io/v1.
	metav1.AddToGroupVersion(Scheme, metav1.SchemeGroupVersion)
	utilruntime.Must(metav1.AddMetaToScheme(Scheme))
}

// JSONSerializer reads and writes JSON; Strict also rejects unknown and
// duplicate fields.
var (
	JSONSerializer = json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{})
	StrictJSON     = json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{Strict: true})
	YAMLSerializer = json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{Yaml: true})
	StrictYAML     = json.NewSerializerWithOptions(json.DefaultMetaFactory, Scheme, Scheme, json.SerializerOptions{Yaml: true, Strict: true})
)

// Protobuf reads and writes Kubernetes' protobuf envelope ("k8s\x00" and
// a runtime.Unknown), what client-go's typed clients send by default;
// ProtobufRaw is the bare form used inside watch streams.
var (
	Protobuf    = protobuf.NewSerializer(Scheme, Scheme)
	ProtobufRaw = protobuf.NewRawSerializer(Scheme, Scheme)
)

// Codec encodes objects with their apiVersion and kind set from the scheme,
// as they are stored and sent.
var Codec = runtime.NewCodec(
	runtime.WithVersionEncoder{Version: schema.GroupVersions(GroupVersions), Encoder: JSONSerializer, ObjectTyper: Scheme},
	JSONSerializer,
)
