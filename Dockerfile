# The bookflow binary (serve, worker, migrate, dev, ...) in a small image.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /bookflow ./cmd/bookflow

FROM gcr.io/distroless/static-debian12
COPY --from=build /bookflow /bookflow
ENTRYPOINT ["/bookflow"]
