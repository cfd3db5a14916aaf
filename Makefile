# novagraph — build, test and run a local cluster.
#
#   make deps          install what a fresh Debian 12 machine lacks
#   make build         bin/metad bin/storaged bin/graphd bin/nova-console
#   make test          vet + every test (the command CI runs)
#   make run           local cluster + demo graph + console
#   make cluster-up    local cluster only (STORAGED=1 by default, STORAGED=3 for three;
#                      METAD=3 for three metad, metad HA)
#   make cluster-down  stop exactly the processes cluster-up started

GO          ?= go
STORAGED    ?= 1
METAD       ?= 1
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.5.1
GOBIN_DIR   := $(shell $(GO) env GOPATH)/bin
BINARIES    := metad storaged graphd nova-console nova-importer nova-bench

.PHONY: deps build proto test test-short vet fmt run cluster-up cluster-down clean

deps:
	@if ! dpkg -s librocksdb-dev protobuf-compiler >/dev/null 2>&1; then \
		echo "installing librocksdb-dev protobuf-compiler"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq librocksdb-dev protobuf-compiler >/dev/null; \
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
	$(GO) build -o bin/ $(addprefix ./cmd/,$(BINARIES))

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w $$(git ls-files '*.go' | grep -v '\.pb\.go$$')

# The test command of the README and of .ci/run. The chaos tests run on
# their own after the rest: they load both cores, and other cluster tests
# running beside them would only measure the contention.
test: vet
	$(GO) test -race -timeout 40m $$($(GO) list ./... | grep -v '/internal/chaos$$')
	$(GO) test -race -timeout 30m ./internal/chaos
	$(GO) test -race -tags failpoints -run Failpoint -timeout 10m ./raftgroup ./storaged

test-short:
	$(GO) test -short ./...

cluster-up: build
	METAD=$(METAD) STORAGED=$(STORAGED) scripts/cluster.sh up

cluster-down:
	scripts/cluster.sh down

run: build
	METAD=$(METAD) STORAGED=$(STORAGED) scripts/cluster.sh up
	bin/nova-console -e ':play basketball' >/dev/null
	@echo 'demo space basketball loaded; try: USE basketball; GO 2 STEPS FROM "player100" OVER follow YIELD dst(edge), $$$$.player.name;'
	bin/nova-console

clean:
	rm -rf bin
