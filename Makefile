# novagraph — build, test and run a local cluster.
#
#   make deps          install what a fresh Debian 12 machine lacks
#   make build         bin/metad bin/storaged bin/graphd bin/nova-console
#   make test          vet + every test (the command CI runs)
#   make run           local cluster + demo graph + console (plaintext, on loopback)
#   make certs         a CA and one certificate per role in certs/ for TLS on
#                      127.0.0.1 (nova-certs; docs/security.md, "Turning TLS on")
#   make cluster-up    local cluster only (STORAGED=1 by default, STORAGED=3 for three;
#                      METAD=3 for three metad, metad HA; STORAGED_FLAGS="..." adds
#                      flags to every storaged, e.g. "--rocksdb-write-buffer-mb 128")
#   make cluster-down  stop exactly the processes cluster-up started
#   make image         container image novagraph:dev (FROM scratch, no registry needed)
#   make compose-up    five-host cluster in containers (deploy/compose); returns when it serves
#   make compose-down  stop and remove it (VOLUMES=1 also deletes its data volumes)
#   make chaos         the chaos run against the compose cluster (FAULTS=100 by
#                      default; SEED, KINDS; report in chaos-report/)
#   make bench-khop    issue 22's k-hop benchmark: novagraph against embedded
#                      DuckDB and the RocksDB floor on soc-Slashdot0902, every
#                      answer checked (KHOP_DATASET=sf1|sf10, KHOP_ARGS="...";
#                      bench/khop/README.md); starts and stops its own cluster
#   make bench-sf100   issue 23's scale run: LDBC SF100 generated, imported (SST)
#                      into 3 storaged with rf 3, verified, load-tested with each
#   make bench-sf1000  daemon metered; SF1000: one storaged, rf 1 (bench/scale/run.sh)

GO          ?= go
# The version --version and novagraph_build_info report (internal/buildinfo).
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
VERSION_LDFLAGS := -X github.com/novagraph/novagraph/internal/buildinfo.version=$(VERSION) -X github.com/novagraph/novagraph/internal/buildinfo.commit=$(COMMIT)
STORAGED    ?= 1
METAD       ?= 1
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.5.1
GOBIN_DIR   := $(shell $(GO) env GOPATH)/bin
BINARIES    := metad storaged graphd nova-console nova-importer nova-bench nova-certs nova-br
IMAGE       ?= novagraph:dev
VOLUMES     ?= 0
FAULTS      ?= 100
SEED        ?= 1
KINDS       ?=
CHAOS_SHORT_FAULTS ?= 7

.PHONY: deps build certs proto tzdata test test-short vet fmt run cluster-up cluster-down clean image compose-up compose-down chaos chaos-short compose-test studio-screenshots bench-khop bench-sf100 bench-sf1000

deps:
	@if ! dpkg -s librocksdb-dev protobuf-compiler g++ chromium >/dev/null 2>&1; then \
		echo "installing librocksdb-dev protobuf-compiler g++ chromium (the studio's browser tests)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq librocksdb-dev protobuf-compiler g++ chromium >/dev/null; \
	fi
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	$(GO) mod download

proto:
	PATH="$(GOBIN_DIR):$$PATH" protoc -I proto \
		--go_out=. --go_opt=module=github.com/novagraph/novagraph \
		--go-grpc_out=. --go-grpc_opt=module=github.com/novagraph/novagraph \
		proto/novagraph/*.proto

build:
	@mkdir -p bin
	$(GO) build -ldflags '$(VERSION_LDFLAGS)' -o bin/ $(addprefix ./cmd/,$(BINARIES))

vet:
	$(GO) vet ./...

certs: build
	bin/nova-certs -dir certs

# The IANA zone database datetime() reads (temporal/zoneinfo.zip), from
# the Go toolchain's: replace it when a Go upgrade brings newer tzdata.
tzdata:
	cp "$$($(GO) env GOROOT)/lib/time/zoneinfo.zip" temporal/zoneinfo.zip

fmt:
	gofmt -l -w $$(git ls-files '*.go' | grep -v '\.pb\.go$$')

# The test command of the README and of .ci/run. The chaos tests run on
# their own after the rest: they load both cores, and other cluster tests
# running beside them would only measure the contention. chaos-short is a
# few faults against the compose cluster, and compose-test what an
# operator does with that cluster (both skipped, saying so, where there is
# no docker).
test: vet
	$(GO) test -race -timeout 40m $$($(GO) list ./... | grep -v '/testkit/chaos$$')
	$(GO) test -race -timeout 30m ./testkit/chaos
	$(GO) test -race -tags failpoints -run Failpoint -timeout 10m ./raftgroup ./storaged
	$(MAKE) chaos-short
	$(MAKE) compose-test

# The compose cluster as an operator uses it from the host: backup and
# restore with compose.sh (nova-br), and every series the Grafana dashboard
# queries exported (deploy/compose/compose_test.go).
compose-test:
	@if docker info >/dev/null 2>&1 && { command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1; }; then \
		$(MAKE) image && \
		$(GO) test -count=1 -tags compose -run TestComposeOperations -timeout 30m -v ./deploy/compose; \
	else \
		echo "compose-test: skipped: docker or docker-compose is not available"; \
	fi

chaos-short:
	@if docker info >/dev/null 2>&1 && command -v docker-compose >/dev/null 2>&1; then \
		$(MAKE) image && \
		NOVAGRAPH_CHAOS_FAULTS=$(CHAOS_SHORT_FAULTS) NOVAGRAPH_CHAOS_SEED=$(SEED) \
		$(GO) test -count=1 -tags compose -run TestComposeChaos -timeout 30m -v ./testkit/chaos/compose; \
	else \
		echo "chaos-short: skipped: docker or docker-compose is not available"; \
	fi

# The studio's pictures in docs/studio/, taken by its browser test.
studio-screenshots:
	NOVAGRAPH_STUDIO_SCREENSHOTS=$(CURDIR)/docs/studio $(GO) test -count=1 -run TestStudioInBrowser ./graphd/studio

# The long chaos run (docs/reliability.md); the report goes to chaos-report/.
chaos: image
	NOVAGRAPH_CHAOS_FAULTS=$(FAULTS) NOVAGRAPH_CHAOS_SEED=$(SEED) NOVAGRAPH_CHAOS_KINDS=$(KINDS) \
	NOVAGRAPH_CHAOS_REPORT=$(CURDIR)/chaos-report \
	$(GO) test -count=1 -tags compose -run TestComposeChaos -timeout 0 -v ./testkit/chaos/compose

test-short:
	$(GO) test -short ./...

cluster-up: build
	METAD=$(METAD) STORAGED=$(STORAGED) scripts/cluster.sh up

cluster-down:
	scripts/cluster.sh down

# Not part of test: a benchmark of several minutes that wants a quiet
# machine. bench/khop is its own Go module (it links DuckDB).
bench-khop: build
	GO=$(GO) bench/khop/run.sh

# Issue 23's scale runs (bench/scale/run.sh): generate, cluster, import,
# verify, load test, report. SF100 on three storaged with rf 3; SF1000 on
# one storaged with rf 1. SCALE_* variables override (see the script).
bench-sf100: build
	SCALE_SF=100 SCALE_STORAGED=$${SCALE_STORAGED:-3} SCALE_METAD=$${SCALE_METAD:-3} SCALE_REPLICAS=$${SCALE_REPLICAS:-3} bench/scale/run.sh

bench-sf1000: build
	SCALE_SF=1000 SCALE_COUNTS=$${SCALE_COUNTS:-false} bench/scale/run.sh

run: build
	METAD=$(METAD) STORAGED=$(STORAGED) scripts/cluster.sh up
	bin/nova-console -e ':play basketball' >/dev/null
	@echo 'demo space basketball loaded; try: USE basketball; GO 2 STEPS FROM "player100" OVER follow YIELD dst(edge), $$$$.player.name;'
	bin/nova-console

clean:
	rm -rf bin

# Container image and the compose cluster (docs/deploy.md). The image is
# built from this machine's binaries and libraries: no registry is used.
image:
	@command -v docker >/dev/null 2>&1 || { echo "make image: docker is not installed (or not on PATH); install Docker 20.10 or newer" >&2; exit 1; }
	IMAGE=$(IMAGE) GO=$(GO) deploy/image/build.sh

compose-up:
	@command -v docker >/dev/null 2>&1 || { echo "make compose-up: docker is not installed (or not on PATH)" >&2; exit 1; }
	@docker image inspect $(IMAGE) >/dev/null 2>&1 || $(MAKE) image IMAGE=$(IMAGE)
	NOVA_IMAGE=$(IMAGE) deploy/compose/compose.sh up

compose-down:
	NOVA_IMAGE=$(IMAGE) VOLUMES=$(VOLUMES) deploy/compose/compose.sh down
