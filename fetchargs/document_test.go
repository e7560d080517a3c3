package fetchargs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocument: Document's keys are exactly those Decode reads, and a full
// document decodes back to its values.
func TestDocument(t *testing.T) {
	var keys []string
	ty := reflect.TypeOf(Document{})
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	if diff := cmp.Diff(argsDoc.Keys, keys); diff != "" {
		t.Errorf("Document's keys differ from the tool's (-tool +Document):\n%s", diff)
	}

	body, maxLen, start, timeout, maxBytes := `{"q":"\u2028"}`, 5, 3, 7, int64(1000)
	doc, err := Document{URL: "https://example.com/?a=\"b\"", Method: "POST", Headers: map[string]string{"X-A": "1"},
		Body: &body, Format: "text", MaxLength: &maxLen, StartIndex: &start, Timeout: &timeout, MaxBytes: &maxBytes}.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(doc)
	if err != nil {
		t.Fatalf("Decode(%s): %v", doc, err)
	}
	want := Args{URL: "https://example.com/?a=\"b\"", Method: "POST", Headers: []Header{{"X-A", "1"}}, Body: body, HasBody: true,
		Format: "text", MaxLength: 5, HasMaxLen: true, StartIndex: 3, Timeout: 7, HasTimeout: true, MaxBytes: 1000, HasMaxBytes: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s decodes to (-want +got):\n%s", doc, diff)
	}

	if doc, err := (Document{URL: "u"}).JSON(); err != nil || doc != `{"url":"u"}` {
		t.Errorf("Document{URL: \"u\"}.JSON() = %s, %v; want {\"url\":\"u\"}", doc, err)
	}
}
