package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// DefaultEventTTL is how long an event lives after its last write, as
// kube-apiserver's --event-ttl default.
const DefaultEventTTL = 3600

// Events is the core/v1 events resource. Events expire DefaultEventTTL
// seconds after their last write.
var Events = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Event"),
	Plural:       "events",
	Singular:     "event",
	ShortNames:   []string{"ev"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.Event{} },
	NewListFunc:  func() runtime.Object { return &corev1.EventList{} },
	NoWatchCache: true,
	Table:        printers.Events,
	Strategy: Strategy{
		Validate:                 validateEvent,
		ValidateUpdate:           validateEventUpdate,
		AllowCreateOnUpdate:      true,
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		e := obj.(*corev1.Event)
		source := e.Source.Component
		if source == "" {
			source = e.ReportingController
		}
		return fields.Set{
			"metadata.name":                  e.Name,
			"metadata.namespace":             e.Namespace,
			"involvedObject.kind":            e.InvolvedObject.Kind,
			"involvedObject.namespace":       e.InvolvedObject.Namespace,
			"involvedObject.name":            e.InvolvedObject.Name,
			"involvedObject.uid":             string(e.InvolvedObject.UID),
			"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
			"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
			"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
			"reason":                         e.Reason,
			"reportingComponent":             e.ReportingController,
			"source":                         source,
			"type":                           e.Type,
		}
	},
	FieldLabels: []string{
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
		"metadata.namespace", "metadata.name",
	},
	TTLSeconds: DefaultEventTTL,
}

// The validation of events is upstream's strategy's
// (pkg/registry/core/event/strategy.go), for requests to core/v1, the
// only version kubesim serves events at.
var (
	validateEvent = upstreamValidate(upcorev1.Convert_v1_Event_To_core_Event, func(e *core.Event) field.ErrorList {
		return corevalidation.ValidateEventCreate(e, corev1.SchemeGroupVersion)
	})
	validateEventUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_Event_To_core_Event, func(e, old *core.Event) field.ErrorList {
		return corevalidation.ValidateEventUpdate(e, old, corev1.SchemeGroupVersion)
	})
)
