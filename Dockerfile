# A static container image for `ocfetch proxy` and `ocfetch mcp --http`: the
# release's binary (.goreleaser.yaml: CGO_ENABLED=0, -trimpath, -s -w and
# the version stamped), run as a non-root user.
#
#   docker build --build-arg VERSION=v0.2.0 --build-arg COMMIT=$(git rev-parse HEAD) -t ocfetch .
#   docker run --rm --network host --user "$(id -u):$(id -g)" \
#     -v "$PWD:/work" -v "$HOME/.config/ocfetch:/config/ocfetch" -e XDG_CONFIG_HOME=/config \
#     ocfetch proxy --listen 127.0.0.1:3128 --trust-root /work
#   docker run --rm --network host --user "$(id -u):$(id -g)" \
#     -v "$PWD:/work" -v "$HOME/.config/ocfetch:/config/ocfetch" -e XDG_CONFIG_HOME=/config \
#     -e OCFETCH_TRUST_ROOT=/work ocfetch mcp --http 127.0.0.1:8931
#
# ocfetch's listeners accept loopback addresses only, so the container
# shares the network of what uses it (--network host, or a pod's shared
# network namespace): the proxy or MCP server is then on that loopback, and
# nothing else can reach it. The workspace (.oc_chat/: rules, allowlist,
# audit log) is the mounted /work, the working directory; --user makes its
# audit log writable. The configuration directory (trust store, user rules,
# the proxy's credentials, the MCP token) is the mounted /config/ocfetch.
# /work is not the directory the user trusted on the host, so its own
# grants count only with --trust-root /work (or OCFETCH_TRUST_ROOT=/work):
# the operator's trust for that one process (README, Install).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
ARG VERSION=dev
ARG COMMIT=""
ARG DATE=""
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/ocfetch ./cmd/ocfetch

# distroless/static: no shell, no libc, CA certificates included; runs as
# the unprivileged user "nonroot" (65532).
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ocfetch /usr/local/bin/ocfetch
USER nonroot:nonroot
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/ocfetch"]
CMD ["proxy", "--listen", "127.0.0.1:3128"]
