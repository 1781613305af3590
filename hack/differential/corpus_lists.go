package main

// listRequests page, select and pin lists of the run's ConfigMaps: three
// of them, made first.
var listRequests = []request{
	{name: "setup-configmaps-for-lists", setup: true, method: "POST", path: cm,
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm3","labels":{"diff":"yes"}}}`},
	{name: "setup-configmaps-for-lists-2", setup: true, method: "POST", path: cm,
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm4","labels":{"diff":"yes"}}}`},
	{name: "list-limit-1", path: cm + "?limit=1&labelSelector=" + label,
		save:   map[string]string{"continue": "metadata.continue", "listRV": "metadata.resourceVersion"},
		values: []string{"items[].metadata.name", "metadata.remainingItemCount"}},
	{name: "list-continue", path: cm + "?limit=1&labelSelector=" + label + "&continue={continue}",
		values: []string{"items[].metadata.name", "metadata.remainingItemCount"}},
	{name: "list-continue-garbage", path: cm + "?limit=1&continue=garbage"},
	{name: "list-continue-with-rv", path: cm + "?limit=1&continue={continue}&resourceVersion=0"},
	{name: "list-limit-huge", path: cm + "?limit=100000000&labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "list-limit-negative", path: cm + "?limit=-1&labelSelector=" + label},
	{name: "list-rv-0", path: cm + "?resourceVersion=0&labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "list-rv-notolderthan", path: cm + "?resourceVersion={listRV}&resourceVersionMatch=NotOlderThan&labelSelector=" + label,
		values: []string{"items[].metadata.name"}},
	{name: "list-rv-exact", path: cm + "?resourceVersion={listRV}&resourceVersionMatch=Exact&labelSelector=" + label,
		values: []string{"items[].metadata.name"}},
	{name: "list-rvmatch-without-rv", path: cm + "?resourceVersionMatch=NotOlderThan"},
	{name: "list-rvmatch-unknown", path: cm + "?resourceVersion=0&resourceVersionMatch=Sometimes"},
	{name: "list-rv-future", path: cm + "?resourceVersion=99999999&resourceVersionMatch=NotOlderThan&labelSelector=" + label},
	{name: "list-rv-garbage", path: cm + "?resourceVersion=abc"},
	{name: "list-fieldselector-name", path: cm + "?fieldSelector=metadata.name%3Dcm3", values: []string{"items[].metadata.name"}},
	{name: "list-fieldselector-unsupported", path: cm + "?fieldSelector=data.a%3D1"},
	{name: "list-labelselector-set", path: cm + "?labelSelector=diff%20in%20(yes)%2C!set", values: []string{"items[].metadata.name"}},
	{name: "list-labelselector-malformed", path: cm + "?labelSelector=diff%20in"},
	{name: "list-unknown-parameter", path: cm + "?labelSelector=" + label + "&frobnicate=yes"},
	{name: "list-all-namespaces", path: "/api/v1/configmaps?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "list-table", path: cm + "?labelSelector=" + label, accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
		values: []string{"columnDefinitions[].name", "kind"}},
}

// watchRequests watch the run's ConfigMaps: short timeouts, so that each
// stream ends by itself.
var watchRequests = []request{
	{name: "watch-from-list-rv", path: cm + "?watch=1&timeoutSeconds=1&resourceVersion={listRV}&labelSelector=" + label, watch: true},
	{name: "watch-legacy-path", path: "/api/v1/watch/namespaces/{ns}/configmaps?timeoutSeconds=1&resourceVersion={listRV}", watch: true},
	{name: "watch-rv-0", path: cm + "?watch=1&timeoutSeconds=1&resourceVersion=0&labelSelector=" + label, watch: true},
	{name: "watch-rv-1-too-old", path: cm + "?watch=1&timeoutSeconds=1&resourceVersion=1&labelSelector=" + label, watch: true},
	{name: "watch-timeout-negative", path: cm + "?watch=1&timeoutSeconds=-1&resourceVersion={listRV}&labelSelector=" + label, watch: true},
	{name: "watch-bookmarks", path: cm + "?watch=1&timeoutSeconds=2&allowWatchBookmarks=true&resourceVersion={listRV}&labelSelector=" + label, watch: true},
	{name: "watch-send-initial-events", path: cm + "?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=" + label, watch: true},
	{name: "watch-send-initial-events-no-bookmarks", path: cm + "?watch=1&timeoutSeconds=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=" + label, watch: true},
	{name: "watch-send-initial-events-without-match", path: cm + "?watch=1&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true", watch: true},
	{name: "watch-one-object", path: cm + "?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dcm3", watch: true},
}
