package worker

import (
	"context"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/bookflow/bookflow/workflows"
)

// CheckSearchAttributes verifies that the namespace has every search attribute the workflows
// set, with the type they set. A workflow that sets an unregistered attribute fails its workflow
// task on every retry, so a worker refuses to start without them.
func CheckSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	missing, err := missingSearchAttributes(ctx, c, namespace)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("the Temporal namespace %q lacks search attributes the booking workflows set: %s "+
			"(register them with `bookflow search-attributes --register`)", namespace, strings.Join(missing, ", "))
	}
	return nil
}

// RegisterSearchAttributes adds the search attributes the namespace lacks. An attribute
// registered with another type is an error: it cannot be changed in place.
func RegisterSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	have, err := searchAttributes(ctx, c, namespace)
	if err != nil {
		return err
	}
	add := map[string]enumspb.IndexedValueType{}
	for _, k := range workflows.SearchAttributes {
		t, ok := have[k.GetName()]
		switch {
		case !ok:
			add[k.GetName()] = k.GetValueType()
		case t != k.GetValueType():
			return fmt.Errorf("search attribute %s is registered as %s, the workflows set a %s", k.GetName(), t, k.GetValueType())
		}
	}
	if len(add) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: add})
	if err != nil {
		return fmt.Errorf("register search attributes: %w", err)
	}
	return nil
}

// SearchAttributeFlags lists the attributes as Name=Type, as `temporal server start-dev
// --search-attribute` takes them.
func SearchAttributeFlags() []string {
	var out []string
	for _, k := range workflows.SearchAttributes {
		out = append(out, k.GetName()+"="+strings.TrimPrefix(k.GetValueType().String(), "INDEXED_VALUE_TYPE_"))
	}
	return out
}

func missingSearchAttributes(ctx context.Context, c client.Client, namespace string) ([]string, error) {
	have, err := searchAttributes(ctx, c, namespace)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, k := range workflows.SearchAttributes {
		if t, ok := have[k.GetName()]; !ok || t != k.GetValueType() {
			missing = append(missing, k.GetName()+" ("+k.GetValueType().String()+")")
		}
	}
	slices.Sort(missing)
	return missing, nil
}

func searchAttributes(ctx context.Context, c client.Client, namespace string) (map[string]enumspb.IndexedValueType, error) {
	res, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("list the search attributes of namespace %q: %w", namespace, err)
	}
	return res.GetCustomAttributes(), nil
}
