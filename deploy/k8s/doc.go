// Package k8s holds the Kubernetes manifests of novagraph (kustomize:
// kubectl apply -k deploy/k8s) and their test: it decodes every manifest
// into the Kubernetes API types, strictly, and checks that names,
// selectors, ports, probes, config and the metad peer list agree. It needs
// no cluster and no network. The package has no code besides this
// documentation: the test is manifests_test.go.
package k8s
