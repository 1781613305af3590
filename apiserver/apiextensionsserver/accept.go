package apiextensionsserver

import (
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"

	"github.com/kubesim/kubesim/apiserver"
)

// prepareRequest readies a request for the version's generic handlers:
// protobuf, which custom resources do not speak, is taken out of the
// Accept header (a client accepting nothing else gets 406, as upstream
// answers).
func (v *crdVersion) prepareRequest(r *http.Request) (*http.Request, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return r, nil
	}
	var kept []string
	for _, clause := range strings.Split(accept, ",") {
		c := goautoneg.ParseAccept(clause)
		if len(c) == 1 && c[0].Type == "application" && c[0].SubType == "vnd.kubernetes.protobuf" {
			continue
		}
		kept = append(kept, clause)
	}
	if len(kept) == len(strings.Split(accept, ",")) {
		return r, nil
	}
	if len(kept) == 0 {
		return r, apiserver.NotAcceptableMsg("only the following media types are accepted: " + strings.Join(crBodyTypes, ", "))
	}
	r.Header = r.Header.Clone()
	r.Header.Set("Accept", strings.Join(kept, ","))
	return r, nil
}
