package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/munnerz/goautoneg"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/spec3"
)

// The media types of the v2 document: JSON, and the gnostic protobuf
// encoding under its two names (the one with "@" is the older).
const (
	mediaTypeV2JSON            = "application/json"
	mediaTypeV2Protobuf        = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaTypeV2ProtobufOldName = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// V2Handler serves GET /openapi/v2: one Swagger 2.0 document made from
// every document the v3 Handler serves, built-in and CRD group-versions
// alike (see swaggerFrom for the merge and v2Schema for the schema
// rewrites).
//
// It answers as kube-openapi's handler (pkg/handler) does: the Accept
// clauses are tried in the client's order of preference against JSON and
// the two protobuf names; the first match is served with its Content-Type
// (protobuf always under the newer name), Vary: Accept and an ETag, the
// upper-case hex SHA-512 of the JSON bytes, shared by both encodings;
// If-None-Match and If-Modified-Since give 304; no match gives 406. Bodies
// of 1400 bytes or more are gzipped for clients that accept gzip (see
// v2_gzip.go). Like upstream's it does not look at the method.
//
// The document is built on the first request and again on the first
// request after the v3 documents changed, which it tells by the ETag of
// their index; the protobuf form is made when first asked for. If a
// rebuild fails the previous document is served, and 503 when there is
// none. A V2Handler is safe for concurrent use.
type V2Handler struct {
	v3 *Handler

	mu   sync.Mutex
	from string // ETag of the v3 index doc was built from
	doc  *v2Document
}

// v2Document is one built document in both encodings.
type v2Document struct {
	json     []byte
	etag     string
	modified time.Time

	protoOnce sync.Once
	proto     []byte
	protoErr  error
}

// NewV2 returns the v2 handler over the documents of v3. Mount it at PathV2.
func NewV2(v3 *Handler) *V2Handler { return &V2Handler{v3: v3} }

// ServeHTTP answers PathV2; see V2Handler.
func (v *V2Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept-Encoding")
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, c := range goautoneg.ParseAccept(accept) {
		for _, mt := range []string{mediaTypeV2JSON, mediaTypeV2ProtobufOldName, mediaTypeV2Protobuf} {
			typ, sub, _ := strings.Cut(mt, "/")
			if (c.Type != typ && c.Type != "*") || (c.SubType != sub && c.SubType != "*") {
				continue
			}
			doc, err := v.current()
			if doc == nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
			body, contentType := doc.json, mediaTypeV2JSON
			if mt != mediaTypeV2JSON {
				if body, err = doc.protobuf(); err != nil {
					http.Error(w, err.Error(), http.StatusServiceUnavailable)
					return
				}
				contentType = mediaTypeV2Protobuf
			}
			w.Header().Set("Content-Type", contentType)
			w.Header().Set("Etag", strconv.Quote(doc.etag))
			serveMaybeGzipped(w, r, body, doc.modified)
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// current returns the document of the v3 documents now served, building
// it if they changed since the last build. On a failed build it returns
// the previous document (nil if none) with the error.
func (v *V2Handler) current() (*v2Document, error) {
	if err := v.v3.wait(); err != nil {
		return nil, err
	}
	v.v3.mu.RLock()
	indexETag := v.v3.index.etag
	v.v3.mu.RUnlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.doc != nil && v.from == indexETag {
		return v.doc, nil
	}
	// Take the documents and the index ETag that goes with them together.
	v.v3.mu.RLock()
	indexETag = v.v3.index.etag
	keys := make([]string, 0, len(v.v3.docs))
	bodies := make(map[string][]byte, len(v.v3.docs))
	for k, d := range v.v3.docs {
		keys = append(keys, k)
		bodies[k] = d.body
	}
	v.v3.mu.RUnlock()
	sort.Strings(keys) // api/v1 first, then apis/<group>/<version>
	doc, err := buildV2Document(keys, bodies)
	if err != nil {
		return v.doc, fmt.Errorf("openapi v2: %w", err)
	}
	v.doc, v.from = doc, indexETag
	return doc, nil
}

// buildV2Document decodes the v3 documents, in the order of keys, and
// merges them into the JSON of one v2 document.
func buildV2Document(keys []string, bodies map[string][]byte) (*v2Document, error) {
	docs := make([]*spec3.OpenAPI, 0, len(keys))
	for _, k := range keys {
		doc := &spec3.OpenAPI{}
		if err := json.Unmarshal(bodies[k], doc); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", k, err)
		}
		docs = append(docs, doc)
	}
	sw, err := swaggerFrom(docs, infoVersion())
	if err != nil {
		return nil, err
	}
	body, err := sw.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	return &v2Document{json: body, etag: etagOf(body), modified: time.Now()}, nil
}

// protobuf is the document in gnostic's protobuf encoding, made once.
func (d *v2Document) protobuf() ([]byte, error) {
	d.protoOnce.Do(func() {
		doc, err := openapi_v2.ParseDocument(d.json)
		if err != nil {
			d.protoErr = fmt.Errorf("openapi v2: protobuf: %w", err)
			return
		}
		d.proto, d.protoErr = proto.Marshal(doc)
	})
	return d.proto, d.protoErr
}
