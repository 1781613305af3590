package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

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
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
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
