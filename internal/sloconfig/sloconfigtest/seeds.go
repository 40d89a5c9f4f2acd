// Package sloconfigtest holds test inputs shared by the engine's own tests
// and the envtest suites that check the engine against a real apiserver.
package sloconfigtest

// FuzzSeeds are the documents FuzzLoadResolve starts from, each given to
// every key of the ConfigMap. Some are valid for some keys only, some for
// none; the apiserver test keeps those the engine accepts.
var FuzzSeeds = []string{
	`{}`, `null`, ``, `[`, `{"clusterStrategy": null}`,
	`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 200}}`,
	`{"clusterStrategy": {"lsClass": {"networkQOS": {"ingressLimit": "1G", "egressLimit": 5}}}}`,
	`{"clusterStrategy": {"totalNetworkBandwidth": 1e3, "schedFeatures": {"a": true}}}`,
	`{"nodeStrategies": [{"nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}, "policy": "auto"}]}`,
	`{"nodeStrategies": [null, 1, {"nodeSelector": {"matchLabels": {"a": ""}}}]}`,
	`{"applications": [{"name": "a"}], "nodeConfigs": [{"nodeSelector": {}, "applications": null}]}`,
	`{"clusterStrategy": {"beClass": {"blkioQOS": {"blocks": [null, {"ioCfg": {"readIOPS": -1}}]}}}}`,
	// Values the engine once accepted and the apiserver or koordlet refused.
	`{"clusterStrategy": {"lsClass": {"blkioQOS": {"enable": true, "blocks": [null]}}}}`,
	`{"clusterStrategy": {"cgroupRoot": {"blkioQOS": {"blocks": [{}]}}}}`,
	`{"applications": [null]}`, `{"applications": [{}]}`,
	`{"clusterStrategy": {"totalNetworkBandwidth": "1e400"}}`,
	// Repeated fields, which Koordinator's decoder merges.
	`{"clusterStrategy": {"lsClass": {"cpuQOS": {"enable": true}}}, ` +
		`"clusterStrategy": {"lsClass": {"cpuQOS": {"groupIdentity": 2}}}}`,
	`{"nodeStrategies": [{"name": "a", "nodeSelector": {"matchLabels": {"a": "1"}}}], ` +
		`"nodeStrategies": [{"cpuBurstPercent": 20}]}`,
}
