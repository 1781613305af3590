package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
)

// Set serves doc as the document of gv from now on, replacing the one
// served; a nil doc removes it. The index lists the new document's hash,
// so clients that cache by hash (kubectl) fetch it again. It is how the
// documents of CRD group-versions come and go while the server runs.
func (h *Handler) Set(gv schema.GroupVersion, doc *spec3.OpenAPI) error {
	if err := h.wait(); err != nil {
		return err
	}
	key := strings.TrimPrefix(gvRoot(gv), "/")
	var sd servedDoc
	if doc != nil {
		body, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("openapi: encoding %s: %w", gv, err)
		}
		sd = servedDoc{body: body, etag: etagOf(body), modified: time.Now()}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if old, ok := h.docs[key]; ok && doc != nil && old.etag == sd.etag {
		return nil // unchanged
	}
	if doc == nil {
		if _, ok := h.docs[key]; !ok {
			return nil
		}
		delete(h.docs, key)
	} else {
		h.docs[key] = sd
	}
	return h.rebuildIndex(time.Now())
}

// rebuildIndex recomputes the index from the documents. Called with h.mu
// held for writing (or before h is shared).
func (h *Handler) rebuildIndex(now time.Time) error {
	index := indexDocument{Paths: map[string]indexEntry{}}
	for key, sd := range h.docs {
		index.Paths[key] = indexEntry{ServerRelativeURL: documentURL(key, sd.etag)}
	}
	body, err := json.Marshal(index)
	if err != nil {
		return err
	}
	h.index = servedDoc{body: body, etag: etagOf(body), modified: now}
	return nil
}
