# The bookflow binary (serve, worker, migrate, dev, ...) in a small image: docker-compose.yml
# builds it once as bookflow:local for every bookflow service, and the Helm chart
# (deploy/helm/bookflow) runs it. There is no shell: healthchecks run `bookflow health URL`.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /bookflow ./cmd/bookflow

# distroless's nonroot user, by number, so that Kubernetes' runAsNonRoot can verify it (a name
# it cannot). serve, worker and migrate write no file: the root filesystem may be read-only.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /bookflow /bookflow
USER 65532:65532
ENTRYPOINT ["/bookflow"]
