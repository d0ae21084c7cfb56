package api

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// openapiYAML is the API's OpenAPI 3 document, written by hand next to the handlers it
// describes. The end-to-end tests hold every request and answer they make to it.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPIPath is where the API serves its OpenAPI document, as JSON.
const OpenAPIPath = "/api/v1/openapi.json"

// OpenAPI loads and validates the API's OpenAPI document (api/openapi.yaml). Each call returns
// a document of its own, which the caller may change.
func OpenAPI() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapiYAML)
	if err != nil {
		return nil, fmt.Errorf("load api/openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate api/openapi.yaml: %w", err)
	}
	return doc, nil
}

// openapiDoc is the document as served: its JSON and the entity tag of that JSON, made once.
var openapiDoc = sync.OnceValues(func() (servedDoc, error) {
	doc, err := OpenAPI()
	if err != nil {
		return servedDoc{}, err
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return servedDoc{}, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	sum := sha256.Sum256(raw)
	return servedDoc{json: raw, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
})

// servedDoc is the OpenAPI document's JSON and its entity tag.
type servedDoc struct {
	json []byte
	etag string
}

// serveOpenAPI answers the OpenAPI document as JSON, to anyone. It changes only with a new
// build, so clients may cache it and revalidate it with its ETag.
func serveOpenAPI(c echo.Context) error {
	doc, err := openapiDoc()
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", doc.etag)
	if c.Request().Header.Get("If-None-Match") == doc.etag {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc.json)
}
