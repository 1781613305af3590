package printers

import (
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// horizontalPodAutoscalerColumns are the columns of `kubectl get hpa`
// (upstream's horizontalPodAutoscalerColumnDefinitions).
var horizontalPodAutoscalerColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Reference", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["scaleTargetRef"]},
	{Name: "Targets", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["metrics"]},
	{Name: "MinPods", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["minReplicas"]},
	{Name: "MaxPods", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["maxReplicas"]},
	{Name: "Replicas", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()["currentReplicas"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// horizontalPodAutoscaler prints NAME REFERENCE TARGETS MINPODS MAXPODS
// REPLICAS AGE, as upstream's printHorizontalPodAutoscaler.
func (p printer) horizontalPodAutoscaler(h *autoscalingv2.HorizontalPodAutoscaler) metav1.TableRow {
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *h.Spec.MinReplicas)
	}
	reference := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
	return metav1.TableRow{
		Cells: []any{h.Name, reference, hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics), minPods,
			int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas), p.since(h.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: h},
	}
}

// hpaTargets is the TARGETS cell: "current/target" of the first two
// metrics, then "+ N more...", as upstream's formatHPAMetrics.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	list := make([]string, 0, len(specs))
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if len(statuses) > i {
			st = &statuses[i]
		}
		list = append(list, hpaTarget(spec, st))
	}
	const most = 2
	if len(list) > most {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:most], ", "), len(list)-most)
	}
	return strings.Join(list, ", ")
}

// hpaTarget prints one metric against its status (nil: none reported).
func hpaTarget(spec autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.External != nil {
			cur = &st.External.Current
		}
		return valueTarget(spec.External.Target, cur)
	case autoscalingv2.PodsMetricSourceType:
		current := "<unknown>"
		if st != nil && st.Pods != nil {
			current = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String())
	case autoscalingv2.ObjectMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Object != nil {
			cur = &st.Object.Current
		}
		return valueTarget(spec.Object.Target, cur)
	case autoscalingv2.ResourceMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return spec.Resource.Name.String() + ": " + resourceTarget(spec.Resource.Target, cur)
	case autoscalingv2.ContainerResourceMetricSourceType:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return spec.ContainerResource.Name.String() + ": " + resourceTarget(spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// valueTarget prints an external or object metric: its average value
// "(avg)", or its value.
func valueTarget(target autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil && cur.AverageValue != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s (avg)", current, target.AverageValue.String())
	}
	if cur != nil {
		current = cur.Value.String()
	}
	return fmt.Sprintf("%s/%s", current, target.Value.String())
}

// resourceTarget prints a resource metric: its average value, or its
// utilization in percent ("<auto>" for no target).
func resourceTarget(target autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, target.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	want := "<auto>"
	if target.AverageUtilization != nil {
		want = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return fmt.Sprintf("%s/%s", current, want)
}

// HorizontalPodAutoscalers prints autoscaling/v2 autoscalers.
var HorizontalPodAutoscalers = tableHandler(horizontalPodAutoscalerColumns, printer.horizontalPodAutoscaler)

// HorizontalPodAutoscalersV1 prints autoscaling/v1 autoscalers as
// upstream does, from the v2 form toV2 converts them to (kube-apiserver
// prints the internal type of either version); each row's object is the
// v1 one.
func HorizontalPodAutoscalersV1(toV2 func(*autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error)) TableConvertor {
	return TableConvertorFunc(func(obj runtime.Object, opts Options) (*metav1.Table, error) {
		var items []runtime.Object
		var v2 runtime.Object
		switch o := obj.(type) {
		case *autoscalingv1.HorizontalPodAutoscaler:
			h, err := toV2(o)
			if err != nil {
				return nil, err
			}
			items, v2 = []runtime.Object{o}, h
		case *autoscalingv1.HorizontalPodAutoscalerList:
			list := &autoscalingv2.HorizontalPodAutoscalerList{ListMeta: o.ListMeta}
			for i := range o.Items {
				h, err := toV2(&o.Items[i])
				if err != nil {
					return nil, err
				}
				list.Items = append(list.Items, *h)
				items = append(items, &o.Items[i])
			}
			v2 = list
		default:
			return HorizontalPodAutoscalers.ConvertToTable(obj, opts)
		}
		table, err := HorizontalPodAutoscalers.ConvertToTable(v2, opts)
		if err != nil {
			return nil, err
		}
		for i := range table.Rows {
			table.Rows[i].Object = runtime.RawExtension{Object: items[i]}
		}
		return table, nil
	})
}
