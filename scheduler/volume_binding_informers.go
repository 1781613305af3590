package scheduler

import (
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// The resources of the volume binding's cluster events.
const (
	// PersistentVolumeResource is a PersistentVolume.
	PersistentVolumeResource EventResource = "PersistentVolume"
	// StorageClassResource is a StorageClass.
	StorageClassResource EventResource = "StorageClass"
)

// wireVolumeBinding gives the VolumeBinding plugin of s its volume and
// class listers from factory and client for its PreBind writes, and
// moves unschedulable pods on a volume or class added or changed. Called
// by New before the informers start.
func (s *Scheduler) wireVolumeBinding(factory informers.SharedInformerFactory, client kubernetes.Interface) error {
	volumes, classes := factory.Core().V1().PersistentVolumes(), factory.Storage().V1().StorageClasses()
	for _, p := range s.fwk.filter {
		if vb, ok := p.(*VolumeBinding); ok {
			vb.volumes, vb.classes, vb.client = volumes.Lister(), classes.Lister(), client
		}
	}
	for _, h := range []struct {
		informer cache.SharedIndexInformer
		resource EventResource
	}{{volumes.Informer(), PersistentVolumeResource}, {classes.Informer(), StorageClassResource}} {
		res := h.resource
		reg, err := h.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { s.queue.Move(ClusterEvent{Resource: res, ActionType: ActionAdd}, nil) },
			UpdateFunc: func(any, any) { s.queue.Move(ClusterEvent{Resource: res, ActionType: ActionUpdate}, nil) },
		})
		if err != nil {
			return err
		}
		s.handlers = append(s.handlers, reg)
	}
	return nil
}
