package registry

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	_ "k8s.io/kubernetes/pkg/apis/events/install" // legacyscheme: events.k8s.io's versions and conversions
	upeventsv1 "k8s.io/kubernetes/pkg/apis/events/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// EventsV1 is the same events as Events (core/v1, the version they are
// stored in) served as events.k8s.io/v1, as kube-apiserver serves them
// from one storage (pkg/registry/events/rest): each object is converted
// through the internal type with upstream's conversion funcs (regarding
// is involvedObject, note is message, the deprecated* fields are the
// core ones), validated as upstream validates a request to
// events.k8s.io (reportingController, action and eventTime required on
// create), and selected by the field names of that group
// (regarding.kind, reportingController...).
var EventsV1 = &Resource{
	Kind:         eventsv1.SchemeGroupVersion.WithKind("Event"),
	Plural:       "events",
	Singular:     "event",
	ShortNames:   []string{"ev"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &eventsv1.Event{} },
	NewListFunc:  func() runtime.Object { return &eventsv1.EventList{} },
	NoWatchCache: true,
	InvalidKind:  &schema.GroupKind{Kind: "Event"},
	Table:        printers.EventsV1(eventV1ToCore),
	Strategy: Strategy{
		Validate:                 validateEventV1,
		ValidateUpdate:           validateEventV1Update,
		AllowCreateOnUpdate:      true,
		AllowUnconditionalUpdate: true,
	},
	Fields:      eventV1Fields,
	FieldLabels: []string{"reason", "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid", "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reportingController", "type", "metadata.namespace", "metadata.name"},
	TTLSeconds:  DefaultEventTTL,
	StoredAs: &StoredVersion{
		NewStored: func() runtime.Object { return &corev1.Event{} },
		ToStored: func(obj runtime.Object) (runtime.Object, error) {
			return eventV1ToCore(obj.(*eventsv1.Event))
		},
		FromStored: func(obj runtime.Object) (runtime.Object, error) {
			return eventCoreToV1(obj.(*corev1.Event))
		},
	},
}

var (
	validateEventV1 = upstreamValidate(upeventsv1.Convert_v1_Event_To_core_Event, func(e *core.Event) field.ErrorList {
		return corevalidation.ValidateEventCreate(e, eventsv1.SchemeGroupVersion)
	})
	validateEventV1Update = upstreamValidateUpdate(upeventsv1.Convert_v1_Event_To_core_Event, func(e, old *core.Event) field.ErrorList {
		return corevalidation.ValidateEventUpdate(e, old, eventsv1.SchemeGroupVersion)
	})
)

// eventV1Fields are the selectable fields of an events.k8s.io event,
// under the names upstream's field label conversion accepts for it.
func eventV1Fields(obj runtime.Object) fields.Set {
	e := obj.(*eventsv1.Event)
	return fields.Set{
		"metadata.name":             e.Name,
		"metadata.namespace":        e.Namespace,
		"regarding.kind":            e.Regarding.Kind,
		"regarding.namespace":       e.Regarding.Namespace,
		"regarding.name":            e.Regarding.Name,
		"regarding.uid":             string(e.Regarding.UID),
		"regarding.apiVersion":      e.Regarding.APIVersion,
		"regarding.resourceVersion": e.Regarding.ResourceVersion,
		"regarding.fieldPath":       e.Regarding.FieldPath,
		"reason":                    e.Reason,
		"reportingController":       e.ReportingController,
		"type":                      e.Type,
	}
}

// eventV1ToCore converts an events.k8s.io event to its stored form.
func eventV1ToCore(in *eventsv1.Event) (*corev1.Event, error) {
	var mid core.Event
	if err := upeventsv1.Convert_v1_Event_To_core_Event(in, &mid, nil); err != nil {
		return nil, err
	}
	out := &corev1.Event{}
	if err := upcorev1.Convert_core_Event_To_v1_Event(&mid, out, nil); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Event"))
	return out, nil
}

// eventCoreToV1 converts a stored core/v1 event to events.k8s.io/v1.
func eventCoreToV1(in *corev1.Event) (*eventsv1.Event, error) {
	var mid core.Event
	if err := upcorev1.Convert_v1_Event_To_core_Event(in, &mid, nil); err != nil {
		return nil, err
	}
	out := &eventsv1.Event{}
	if err := upeventsv1.Convert_core_Event_To_v1_Event(&mid, out, nil); err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(eventsv1.SchemeGroupVersion.WithKind("Event"))
	return out, nil
}
