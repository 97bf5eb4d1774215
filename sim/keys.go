package sim

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/edgetwin/edgetwin/hw/units"
)

// KeyKind is the dimension of a result key, read from its name as the
// result's JSON names them: memory.dram_bytes is a size, ttft_s a
// duration, thermal.peak_c a temperature, memory.l3_miss_rate a fraction
// (printed in per cent). Token rates and counts are plain numbers (0).
func KeyKind(key string) units.Kind {
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch {
	case isFraction(key, last):
		return units.KindFraction
	case strings.HasSuffix(key, "_bytes_per_s"):
		return units.KindByteRate
	case strings.HasSuffix(key, "_per_s"):
		return 0
	case strings.HasSuffix(key, "_bytes"):
		return units.KindBytes
	case strings.HasSuffix(key, "_s"), strings.HasSuffix(key, ".seconds"):
		return units.KindDuration
	case strings.HasSuffix(key, "joules_per_token"), strings.HasSuffix(key, "_j"):
		return units.KindEnergy
	case strings.HasSuffix(key, "_w"):
		return units.KindPower
	case strings.HasSuffix(key, "_c"):
		return units.KindTemperature
	}
	return 0
}

// isFraction reports whether the key at path (last its final segment) is
// a share in [0, 1]: miss rates (and their classes), utilisations, stall
// shares, shares of a spread, acceptance rates.
func isFraction(path, last string) bool {
	switch {
	case strings.HasSuffix(last, "_rate") && !strings.HasSuffix(last, "_per_s"),
		strings.HasSuffix(last, "_util"), strings.HasSuffix(last, "_share"),
		strings.HasPrefix(last, "stall_"),
		strings.Contains(path, "_rate_by_class."):
		return true
	}
	return false
}

// KeyLabel is a result key as an axis or a column title reads it: its last
// segment in words, the architect's abbreviations capitalised, the unit
// suffix dropped (the unit is printed beside it), and the phase it
// belongs to after a comma: memory.decode.kv_l3_miss_rate is "KV L3 miss
// rate, decode", decode.tokens_per_s "decode tokens/s", ttft_s "TTFT".
func KeyLabel(key string) string {
	parts := strings.Split(key, ".")
	label := keyWordsOf(parts[len(parts)-1], true)
	var qual []string
	for i := len(parts) - 2; i >= 1; i-- {
		switch p := parts[i]; p {
		case "prefill", "decode":
			qual = append(qual, p)
		default:
			label = keyWordsOf(p, false) + " " + label
		}
	}
	if top := parts[0]; len(parts) > 1 && (top == "prefill" || top == "decode") && !strings.HasPrefix(label, top) {
		label = top + " " + label
	}
	if len(qual) > 0 {
		label += ", " + strings.Join(qual, ", ")
	}
	return label
}

// keyWordsOf is one segment of a key in words; unit suffixes go when
// leaf is set (the unit is printed beside the label).
func keyWordsOf(seg string, leaf bool) string {
	if leaf {
		if t, ok := strings.CutSuffix(seg, "_c"); ok { // temperatures: peak_c, skin_peak_c
			seg = t + "_temperature"
		}
		for _, suf := range []string{"_s", "_w", "_j"} {
			if strings.HasSuffix(seg, suf) && !strings.HasSuffix(seg, "_per_s") {
				seg = strings.TrimSuffix(seg, suf)
				break
			}
		}
	}
	seg = strings.ReplaceAll(strings.ReplaceAll(seg, "_per_s", "/s"), "_per_", "/")
	words := strings.Split(seg, "_")
	for i, w := range words {
		if up, ok := keyWords[w]; ok {
			words[i] = up
		}
	}
	return strings.Join(words, " ")
}

// keyWords are the words of the key space an architect writes otherwise.
var keyWords = map[string]string{
	"kv": "KV", "l3": "L3", "dram": "DRAM", "sram": "SRAM", "ttft": "TTFT", "tops": "TOPS", "mac": "MAC",
	"bw": "bandwidth", "util": "utilisation", "eff": "effective", "p50": "p50", "p99": "p99", "ms": "ms",
}

// Metric reads the number at a dotted result key (decode.tokens_per_s,
// memory.l3_miss_rate_by_class.kv) as the JSON of the result has it,
// without encoding the result: nil for a null figure, an error for a key
// the JSON does not have (a path that names no field, an optional block
// the run left out) or one that is not a number. Keys follow the json tags
// of Result; a slice or map on the way is not a metric.
func (r *Result) Metric(key string) (*float64, error) {
	v := reflect.ValueOf(r).Elem()
	for part := range strings.SplitSeq(key, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, fmt.Errorf("the result has no %s", key)
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, fmt.Errorf("the result has no %s", key)
		}
		f, ok := jsonField(v, part)
		if !ok {
			return nil, fmt.Errorf("the result has no %s", key)
		}
		v = f
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		x := v.Float()
		return &x, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := float64(v.Int())
		return &x, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := float64(v.Uint())
		return &x, nil
	}
	return nil, fmt.Errorf("%s: %v is not a number", key, v.Interface())
}

// jsonField is the field of struct v that encoding/json writes as name,
// and whether the JSON has it (an omitempty field at its zero value is
// left out).
func jsonField(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "-" || !sf.IsExported() && !sf.Anonymous {
			continue
		}
		if sf.Anonymous && tag == "" && sf.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are the outer struct's.
			if f, ok := jsonField(v.Field(i), name); ok {
				return f, true
			}
			continue
		}
		if tag == "" {
			tag = sf.Name
		}
		if tag != name {
			continue
		}
		f := v.Field(i)
		if has(opts, "omitempty") && emptyJSON(f) || has(opts, "omitzero") && f.IsZero() {
			return reflect.Value{}, false
		}
		return f, true
	}
	return reflect.Value{}, false
}

// has reports whether a json tag's options name opt.
func has(opts, opt string) bool { return strings.Contains(","+opts+",", ","+opt+",") }

// emptyJSON reports whether encoding/json's omitempty leaves f out: false,
// 0, "", a nil pointer or interface, an empty slice, map or array (never a
// struct).
func emptyJSON(f reflect.Value) bool {
	switch f.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return f.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return f.IsZero()
	}
	return false
}
