package sloconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// overlay lays patch over base the way docs/behaviour.md#merge-rules describes: objects
// merge key by key, recursively; anything else in patch (scalars, lists)
// replaces base's value whole. A nil patch (nothing written) keeps base.
// Neither input is modified; the result may
// share unchanged subtrees with them.
func overlay(base, patch any) any {
	if patch == nil {
		return base
	}
	patchObj, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	baseObj, ok := base.(map[string]any)
	if !ok {
		return patch
	}
	out := make(map[string]any, len(baseObj)+len(patchObj))
	maps.Copy(out, baseObj)
	for k, v := range patchObj {
		out[k] = overlay(baseObj[k], v)
	}
	return out
}

// toTree turns a typed value into plain JSON values (objects as maps,
// numbers as json.Number), the form overlay works on.
func toTree(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := unmarshalNumbers(data, &tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// fromTree decodes a plain JSON tree into out.
func fromTree(tree any, out any) error {
	data, err := json.Marshal(tree)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the merged value: %w", err)
	}
	return nil
}

func unmarshalNumbers(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(out)
}
