package registry

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install" // legacyscheme: autoscaling's versions, conversions and declarative validation
	upautoscalingv1 "k8s.io/kubernetes/pkg/apis/autoscaling/v1"
	upautoscalingv2 "k8s.io/kubernetes/pkg/apis/autoscaling/v2"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// HorizontalPodAutoscalers is autoscaling/v2 horizontalpodautoscalers,
// the version they are stored in, with upstream's strategies
// (pkg/registry/autoscaling/horizontalpodautoscaler): status only through
// horizontalpodautoscalers/status; a change of spec bumps the generation.
var HorizontalPodAutoscalers = &Resource{
	Kind:        autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"),
	Plural:      "horizontalpodautoscalers",
	Singular:    "horizontalpodautoscaler",
	ShortNames:  []string{"hpa"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
	NewListFunc: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
	Table:       printers.HorizontalPodAutoscalers,
	Default:     upstreamDefaults(upautoscalingv2.SetObjectDefaults_HorizontalPodAutoscaler, hpaV2ToInternal, hpaInternalToV2),
	Strategy:    upstreamStrategy(horizontalpodautoscaler.Strategy, "", hpaV2ToInternal, hpaInternalToV2),
	Status:      &HorizontalPodAutoscalerStatusStrategy,
}

// HorizontalPodAutoscalerStatusStrategy is the strategy of
// horizontalpodautoscalers/status in autoscaling/v2.
var HorizontalPodAutoscalerStatusStrategy = upstreamStrategy(horizontalpodautoscaler.StatusStrategy, "status", hpaV2ToInternal, hpaInternalToV2)

// HorizontalPodAutoscalersV1 is the same horizontalpodautoscalers served
// as autoscaling/v1 (kubectl autoscale up to v1.33 creates them there):
// the objects stored as autoscaling/v2 are converted through the internal
// type with upstream's conversion funcs, which keep what v1 cannot say
// (metrics but the CPU target, behavior, conditions) in annotations.
var HorizontalPodAutoscalersV1 = &Resource{
	Kind:        autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"),
	Plural:      "horizontalpodautoscalers",
	Singular:    "horizontalpodautoscaler",
	ShortNames:  []string{"hpa"},
	Categories:  []string{"all"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscaler{} },
	NewListFunc: func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscalerList{} },
	Table:       printers.HorizontalPodAutoscalersV1(hpaV1ToV2),
	Default:     upstreamDefaults(upautoscalingv1.SetObjectDefaults_HorizontalPodAutoscaler, hpaV1ToInternal, hpaInternalToV1),
	Strategy:    upstreamStrategy(horizontalpodautoscaler.Strategy, "", hpaV1ToInternal, hpaInternalToV1),
	Status:      &HorizontalPodAutoscalerV1StatusStrategy,
	StoredAs: &StoredVersion{
		NewStored: func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		ToStored: func(obj runtime.Object) (runtime.Object, error) {
			return hpaV1ToV2(obj.(*autoscalingv1.HorizontalPodAutoscaler))
		},
		FromStored: func(obj runtime.Object) (runtime.Object, error) {
			return hpaV2ToV1(obj.(*autoscalingv2.HorizontalPodAutoscaler))
		},
	},
}

// HorizontalPodAutoscalerV1StatusStrategy is the strategy of
// horizontalpodautoscalers/status in autoscaling/v1.
var HorizontalPodAutoscalerV1StatusStrategy = upstreamStrategy(horizontalpodautoscaler.StatusStrategy, "status", hpaV1ToInternal, hpaInternalToV1)

var (
	hpaV2ToInternal = upautoscalingv2.Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
	hpaInternalToV2 = upautoscalingv2.Convert_autoscaling_HorizontalPodAutoscaler_To_v2_HorizontalPodAutoscaler
	hpaV1ToInternal = upautoscalingv1.Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
	hpaInternalToV1 = upautoscalingv1.Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler
)

// hpaV1ToV2 converts a v1 autoscaler to its stored form, v2, with v2's
// defaults, as kube-apiserver reads it back from etcd.
func hpaV1ToV2(in *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	var mid autoscaling.HorizontalPodAutoscaler
	if err := hpaV1ToInternal(in, &mid, nil); err != nil {
		return nil, err
	}
	out := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := hpaInternalToV2(&mid, out, nil); err != nil {
		return nil, err
	}
	upautoscalingv2.SetObjectDefaults_HorizontalPodAutoscaler(out)
	out.GetObjectKind().SetGroupVersionKind(autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"))
	return out, nil
}

// hpaV2ToV1 converts a stored v2 autoscaler to v1.
func hpaV2ToV1(in *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.HorizontalPodAutoscaler, error) {
	var mid autoscaling.HorizontalPodAutoscaler
	if err := hpaV2ToInternal(in, &mid, nil); err != nil {
		return nil, err
	}
	out := &autoscalingv1.HorizontalPodAutoscaler{}
	if err := hpaInternalToV1(&mid, out, nil); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"))
	return out, nil
}
