# A static container image for `ocfetch proxy` and `ocfetch mcp --http`.
#
#   docker build --build-arg VERSION=1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) -t ocfetch .
#   docker run --rm --network host -v "$PWD:/work" ocfetch proxy --listen 127.0.0.1:3128
#   docker run --rm --network host -v "$PWD:/work" ocfetch mcp --http 127.0.0.1:8931
#
# ocfetch's listeners accept loopback addresses only, so the container
# shares the network of what uses it (--network host, or a pod's shared
# network namespace): the proxy or MCP server is then on that loopback, and
# nothing else can reach it. The workspace (.oc_chat/: rules, allowlist,
# audit log) is the mounted /work.

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
