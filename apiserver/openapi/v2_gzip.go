package openapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// gzipMinSize is the smallest body worth compressing; the default of the
// gzip handler kube-openapi wraps its handler in.
const gzipMinSize = 1400

// serveMaybeGzipped serves body with http.ServeContent (ETag and
// If-Modified-Since checks, 304), gzipped when the client accepts gzip and
// the body is at least gzipMinSize bytes. Range and HEAD requests are
// served uncompressed.
func serveMaybeGzipped(w http.ResponseWriter, r *http.Request, body []byte, modified time.Time) {
	if acceptsGzip(r.Header.Get("Accept-Encoding")) && len(body) >= gzipMinSize &&
		r.Header.Get("Range") == "" && r.Method != http.MethodHead {
		gw := &gzipResponseWriter{ResponseWriter: w}
		defer gw.close()
		w = gw
	}
	http.ServeContent(w, r, PathV2, modified, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header lists gzip with a
// quality above zero.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		if q > 0 {
			return true
		}
	}
	return false
}

// gzipResponseWriter compresses a 200 response; any other status (304,
// errors) passes through unchanged.
type gzipResponseWriter struct {
	http.ResponseWriter
	wroteHeader bool
	gz          *gzip.Writer
}

func (g *gzipResponseWriter) WriteHeader(code int) {
	if g.wroteHeader {
		return
	}
	g.wroteHeader = true
	if code == http.StatusOK {
		h := g.Header()
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		g.gz = gzip.NewWriter(g.ResponseWriter)
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *gzipResponseWriter) Write(b []byte) (int, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	if g.gz != nil {
		return g.gz.Write(b)
	}
	return g.ResponseWriter.Write(b)
}

func (g *gzipResponseWriter) close() {
	if g.gz != nil {
		g.gz.Close()
	}
}
