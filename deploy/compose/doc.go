// Package compose holds the five-host docker-compose cluster
// (docker-compose.yml, compose.sh; README.md says how to run it) and the
// test of what an operator does with it from the host: compose_test.go,
// built with the tag compose, brings the cluster up under a project of its
// own, backs it up and restores it with `compose.sh backup|restore`
// (nova-br), and checks that every series the Grafana dashboard queries is
// in some daemon's /metrics (`compose.sh metrics`). `make compose-test`
// (part of `make test`) runs it where docker is; the package has no code
// besides this documentation.
package compose
