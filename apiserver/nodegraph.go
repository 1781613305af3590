package apiserver

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/fields"
)

// podsOnNode lists the pods of namespace bound to node, from the pod
// store (its watch cache): the Node authorizer's graph
// (auth.NewNodeAuthorizerWithGraph).
func (s *Server) podsOnNode(ctx context.Context, namespace, node string) ([]corev1.Pod, error) {
	obj, err := s.reg.Pods.List(ctx, namespace, &metainternalversion.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node),
	})
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*corev1.PodList)
	if !ok {
		return nil, fmt.Errorf("apiserver: pod list is a %T", obj)
	}
	return list.Items, nil
}
