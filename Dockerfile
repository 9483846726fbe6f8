# contourc as a container image: its two static binaries (contourc, and
# contourc-engines beside it, which contourc runs for Helm charts and Flux
# Kustomizations) on an empty base, run as a non-root user. The image is built and pushed by the release pipeline
# (docker buildx build --platform linux/amd64,linux/arm64 .); internal/release
# tests run this file's build lines, so what they build stays buildable.
#
#   docker build -t contourc .
#   docker run --rm -v "$PWD/manifests:/manifests:ro" contourc check /manifests
#   docker run --rm -v "$PWD/manifests:/manifests:ro" -p 8001:8001 \
#     contourc serve --xds-address 0.0.0.0 /manifests

ARG GO_VERSION=1.26.8

# The build runs on the builder's own platform and cross-compiles, which is
# quicker than emulating the target's.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS=linux
ARG TARGETARCH=amd64
# The release pipeline passes the tag, commit and commit date (.git is not
# in the build context: .dockerignore).
ARG VERSION=dev
ARG COMMIT=
ARG BUILD_DATE=
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH scripts/build.sh /out/contourc
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH scripts/build.sh /out/contourc-engines ./cmd/contourc-engines
# scratch has no /tmp; kustomize builds and Go's os.TempDir expect one.
RUN mkdir -p /out/tmp && chmod 1777 /out/tmp

# scratch: nothing but the binaries, side by side (contourc looks for
# contourc-engines beside itself). contourc makes no network calls of its
# own (no CA certificates needed) and reads no user database, so the user
# is a bare UID: 65532, distroless's "nonroot".
FROM scratch
COPY --from=build /out/contourc /usr/local/bin/contourc
COPY --from=build /out/contourc-engines /usr/local/bin/contourc-engines
COPY --from=build /out/tmp /tmp
ENV PATH=/usr/local/bin
USER 65532:65532
WORKDIR /manifests
ENTRYPOINT ["contourc"]
CMD ["--help"]
