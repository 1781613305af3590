package controllers

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/davecgh/go-spew/spew"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
)

// podTemplateHash is the value of the pod-template-hash label of the
// ReplicaSet a Deployment makes for template, as upstream's ComputeHash:
// FNV-32a over the template printed by go-spew (sorted keys, no
// methods), then the collision count if there is one (little-endian, in
// 8 bytes), the sum in decimal, encoded with SafeEncodeString (no
// vowels, so that no word is spelled). The same template gives the same
// name as a real cluster's.
func podTemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	deepHash(h, *template)
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// deepHash writes obj into h as upstream's hashutil.DeepHashObject.
func deepHash(h hash.Hash, obj any) {
	h.Reset()
	printer := spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}
	printer.Fprintf(h, "%#v", obj)
}
