# The manager's image: a static binary (CGO off, the same flags as GO_BUILD in
# the Makefile) on a distroless non-root base.
#
# Both base images are build arguments so that the same file builds offline
# (hack/image/build-offline.sh tags local stand-ins and passes their names);
# the defaults are the upstream images a user online builds from.
ARG BUILDER_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static:nonroot

FROM ${BUILDER_IMAGE} AS builder
ARG TARGETOS
ARG TARGETARCH
# Passed through when set (an offline or corporate module proxy); empty
# means the toolchain's default.
ARG GOPROXY

# Where the build keeps downloaded modules and compiled packages: by default
# the cache mounts below (Docker BuildKit and Podman), which keep them between
# builds and never end up in the image. The offline build points both at the
# host's own Go caches, bind-mounted, so that what make build compiled is not
# compiled again (hack/image/build-offline.sh).
ARG GOMODCACHE=/go/pkg/mod
ARG GOCACHE=/root/.cache/go-build

WORKDIR /workspace
# Modules first: this layer is reused while go.mod and go.sum are unchanged.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    GOMODCACHE=${GOMODCACHE} go mod download

COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/

# The version stamped into the binary, as make build stamps it (make
# docker-build passes both; a plain docker build says v0.0.0-dev).
ARG VERSION=v0.0.0-dev
ARG REVISION=unknown

# One line per flag, so that a flag is added without touching the others.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOMODCACHE=${GOMODCACHE} GOCACHE=${GOCACHE} \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
    go build \
      -trimpath \
      -ldflags="-s -w \
        -X github.com/nodeslo/nodeslo-controller/internal/version.version=${VERSION} \
        -X github.com/nodeslo/nodeslo-controller/internal/version.revision=${REVISION}" \
      -o manager ./cmd

FROM ${RUNTIME_IMAGE}
WORKDIR /
COPY --from=builder /workspace/manager /manager
# distroless's nonroot user, by number: the Deployment's runAsNonRoot can
# only verify a numeric user.
USER 65532:65532

ENTRYPOINT ["/manager"]
