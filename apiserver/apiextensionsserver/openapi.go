package apiextensionsserver

import (
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
)

// syncOpenAPI is the OpenAPI controller: the document of every
// group-version an established CRD serves is rebuilt from those CRDs,
// and the documents of group-versions no CRD serves any more are
// removed. A CRD whose document cannot be built is left out.
func (c *crdController) syncOpenAPI() {
	byGV := map[schema.GroupVersion][]*apiextensionsv1.CustomResourceDefinition{}
	c.h.mu.RLock()
	for _, crd := range c.h.crds {
		if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
				byGV[gv] = append(byGV[gv], crd)
			}
		}
	}
	c.h.mu.RUnlock()
	for gv := range c.published {
		if _, ok := byGV[gv]; !ok {
			_ = c.s.OpenAPI().Set(gv, nil)
			delete(c.published, gv)
		}
	}
	for gv, crds := range byGV {
		sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
		doc, err := apiextensions.OpenAPIDocument(crds, gv.Version)
		if err != nil {
			continue
		}
		if c.s.OpenAPI().Set(gv, doc) == nil {
			c.published[gv] = true
		}
	}
}
