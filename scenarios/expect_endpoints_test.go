package scenarios

import "testing"

func TestParseEndpoints(t *testing.T) {
	one := int64(1)
	checkParse(t, parseEndpoints, []parseCase[Expectation]{
		{name: "slices", key: "endpoints", src: "{service: web, ready: 2, notReady: 1, readyPods: [web-3, web-1], port: 8080, slices: 1}",
			want: &EndpointsExpectation{Service: "web", Namespace: "default", From: "EndpointSlice", Ready: 2, NotReady: 1,
				ReadyPods: []string{"web-1", "web-3"}, Port: 8080, Slices: &one}},
		{name: "the Endpoints object", key: "endpoints", src: "{service: web, namespace: team, from: Endpoints, ready: 0}",
			want: &EndpointsExpectation{Service: "web", Namespace: "team", From: "Endpoints"}},
		{name: "no service", key: "endpoints", src: "{ready: 1}", wantErr: `1:1: endpoints: missing field "service"`},
		{name: "no ready", key: "endpoints", src: "{service: web}", wantErr: `1:1: endpoints: missing field "ready"`},
		{name: "pods but not as many", key: "endpoints", src: "{service: web, ready: 2, readyPods: [web-1]}",
			wantErr: `1:37: endpoints.readyPods: 1 pods, but ready is 2`},
		{name: "unknown source", key: "endpoints", src: "{service: web, from: Service, ready: 1}",
			wantErr: `1:22: endpoints.from: "Service" is not one of EndpointSlice, Endpoints`},
		{name: "port out of range", key: "endpoints", src: "{service: web, ready: 1, port: 70000}",
			wantErr: `1:32: endpoints.port: 70000 is not a port number (1-65535)`},
		{name: "slices of Endpoints", key: "endpoints", src: "{service: web, from: Endpoints, ready: 1, slices: 1}",
			wantErr: `1:51: endpoints.slices: only with from: EndpointSlice`},
	})
}
