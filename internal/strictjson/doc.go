// Package strictjson checks small JSON policy files (the local allowlist,
// settings.json, rules.json) strictly, in one pass, so that their readers
// only describe their schema and check values.
//
// encoding/json alone is lenient where a policy file must not be: it lets
// a later duplicate key override an earlier one, matches keys to struct
// fields case-insensitively (folding "ſ" to "s" and "K" to "k"), turns
// 1.0 and 1e0 into the integer 1 for an int field, and recurses on nesting.
// [Walker.Walk] refuses a leading byte order mark by name
// ([ErrByteOrderMark]: Notepad's "UTF-8 with BOM", PowerShell 5's UTF-16,
// with the fix in the message), invalid UTF-8, invalid JSON, trailing data,
// duplicate keys (also when spelled with \u escapes), keys outside a fixed
// set (byte-exactly; objects listed in AnyKeysAt, maps of arbitrary
// names, are exempt), and nesting past a bound, without recursion. It
// calls a visitor before entering each value, so a reader checks kinds
// and values in document order and its first complaint is the one
// reported. [Int] accepts only a plain integer literal; [Describe] and
// [Kind.String] name a value in a message without quoting more than 64
// sanitized bytes of it.
//
// [Structure] is the one scanner of JSON structure (brackets, commas and
// colons outside strings) for callers that only measure a document
// ([Span], [Depth], content's pretty-printer). [EncodeList] and [Quote]
// write the files that hold a schema version and one array (rules.json,
// trust.json) in the one layout ocfetch keeps them in.
//
// A reader that walks the values itself:
//
//	var allowlist = strictjson.Walker{MaxDepth: 2, Keys: []string{"schema_version", "ports"}}
//
//	err := allowlist.Walk(data, func(p strictjson.Path, v strictjson.Value) error {
//		switch {
//		case len(p) == 0 && v.Kind != strictjson.Object:
//			return fmt.Errorf("the top level is %s; want a JSON object", strictjson.Describe(v))
//		case len(p) == 2: // ports[i]
//			port, ok := strictjson.Int(v.Raw, 1, 65535)
//			...
//		}
//		return nil
//	})
//
// A reader that decodes into a struct once the structure is known sound:
//
//	var rulesFile = strictjson.Walker{MaxDepth: 8, Keys: []string{"schema_version", "rules", ...}}
//
//	if err := rulesFile.Walk(data, nil); err != nil { ... }
//	dec := json.NewDecoder(bytes.NewReader(data))
//	dec.DisallowUnknownFields() // keys are exact; this checks their level
//	err := dec.Decode(&f)
package strictjson
