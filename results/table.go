package results

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Kind is the type of a table column; every kind maps to a plain Parquet
// type that DuckDB, pandas and polars read natively.
type Kind int

// The column kinds; the zero Kind is invalid so a forgotten Kind is caught.
const (
	Int64   Kind = iota + 1 // INT64, Go int64
	Float64                 // DOUBLE, Go float64
	String                  // BYTE_ARRAY annotated STRING, Go string
	Bool                    // BOOLEAN, Go bool
)

// String returns the Go name of the kind's values, as used in errors.
func (k Kind) String() string {
	switch k {
	case Int64:
		return "int64"
	case Float64:
		return "float64"
	case String:
		return "string"
	case Bool:
		return "bool"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// goType is the Go type parquet-go derives the column's Parquet type from.
func (k Kind) goType() reflect.Type {
	switch k {
	case Int64:
		return reflect.TypeFor[int64]()
	case Float64:
		return reflect.TypeFor[float64]()
	case String:
		return reflect.TypeFor[string]()
	case Bool:
		return reflect.TypeFor[bool]()
	}
	return nil
}

// Column describes one column of a dynamic table; every column is nullable.
type Column struct {
	Name string // the Parquet column name; not empty, no comma, not "-"
	Kind Kind   // the type of the column's non-NULL values
}

// tableSchema builds the schema of cols in their given order.
//
// It goes through reflect.StructOf because parquet-go keeps struct fields in
// declaration order, whereas parquet.Group is a map and its columns come out
// sorted by name. Go field names are synthetic (F0, F1, ...) so any column
// name works; the Parquet name comes from the tag.
func tableSchema(cols []Column) (*parquet.Schema, error) {
	if len(cols) == 0 {
		return nil, errors.New("no columns")
	}
	seen := make(map[string]bool, len(cols))
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("column %d: empty name", i)
		case c.Name == "-":
			// parquet-go reads a "-" tag as "skip this field".
			return nil, fmt.Errorf("column %d: name %q is reserved", i, c.Name)
		case strings.Contains(c.Name, ","):
			// parquet-go splits tags at commas, so the name would be cut.
			return nil, fmt.Errorf("column %d: name %q contains a comma", i, c.Name)
		case seen[c.Name]:
			return nil, fmt.Errorf("column %d: duplicate name %q", i, c.Name)
		case c.Kind.goType() == nil:
			return nil, fmt.Errorf("column %q: invalid kind %v", c.Name, c.Kind)
		}
		seen[c.Name] = true
		fields[i] = reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: c.Kind.goType(),
			Tag:  reflect.StructTag("parquet:" + strconv.Quote(c.Name+",optional")),
		}
	}
	model := reflect.Zero(reflect.StructOf(fields)).Interface()
	// An anonymous struct would give the root an empty name; "schema" is
	// the name other writers use.
	return parquet.NewSchema("schema", parquet.SchemaOf(model)), nil
}

// WriteTable atomically writes a table with the given columns, in order, and
// rows to path, replacing any file there. Each row has one value per column:
// nil for NULL, or a value of the column's kind (any Go integer type for
// Int64 as long as it fits, float32 or float64 for Float64, and named types
// with those underlying kinds).
func WriteTable(path string, cols []Column, rows [][]any, meta Metadata) error {
	schema, err := tableSchema(cols)
	if err == nil {
		err = meta.validate()
	}
	if err == nil {
		// Converting every row before creating the file means bad input
		// fails without touching the disk, and errors name row and column.
		err = checkRows(cols, rows)
	}
	if err != nil {
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		return writeTableTo(w, schema, cols, rows, meta)
	})
}

// checkRows reports the first value that WriteTable could not store.
func checkRows(cols []Column, rows [][]any) error {
	for i, row := range rows {
		if len(row) != len(cols) {
			return fmt.Errorf("row %d has %d values, want %d", i, len(row), len(cols))
		}
		for j, v := range row {
			if _, err := toValue(cols[j].Kind, v); err != nil {
				return fmt.Errorf("row %d column %q: %w", i, cols[j].Name, err)
			}
		}
	}
	return nil
}

// writeTableTo encodes a whole table file to w; rows must have passed
// checkRows.
func writeTableTo(w io.Writer, schema *parquet.Schema, cols []Column, rows [][]any, meta Metadata) error {
	pw := parquet.NewWriter(w, append(writerOptions(meta), schema)...)
	// Convert in batches so memory beyond the caller's rows stays bounded.
	const batch = 1024
	buf := make([]parquet.Row, 0, batch)
	for start := 0; start < len(rows); start += batch {
		buf = buf[:0]
		for _, row := range rows[start:min(start+batch, len(rows))] {
			prow := make(parquet.Row, len(cols))
			for j, v := range row {
				pv, err := toValue(cols[j].Kind, v)
				if err != nil {
					return fmt.Errorf("row %d column %q: %w", start+len(buf), cols[j].Name, err)
				}
				// Flat optional columns: definition level 1 means present,
				// 0 means NULL; the repetition level is always 0.
				def := 1
				if v == nil {
					def = 0
				}
				prow[j] = pv.Level(0, def, j)
			}
			buf = append(buf, prow)
		}
		if _, err := pw.WriteRows(buf); err != nil {
			return fmt.Errorf("write rows: %w", err)
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("finish file: %w", err)
	}
	return nil
}

// toValue converts one cell to a parquet value of kind k. It goes by
// reflect.Kind so named types (type Policy string) work too.
func toValue(k Kind, v any) (parquet.Value, error) {
	if v == nil {
		return parquet.NullValue(), nil
	}
	rv := reflect.ValueOf(v)
	switch k {
	case Int64:
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return parquet.Int64Value(rv.Int()), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if u := rv.Uint(); u <= math.MaxInt64 {
				return parquet.Int64Value(int64(u)), nil
			}
			return parquet.Value{}, fmt.Errorf("%v overflows int64", v)
		}
	case Float64:
		switch rv.Kind() {
		case reflect.Float32, reflect.Float64:
			return parquet.DoubleValue(rv.Float()), nil
		}
	case String:
		if rv.Kind() == reflect.String {
			return parquet.ByteArrayValue([]byte(rv.String())), nil
		}
	case Bool:
		if rv.Kind() == reflect.Bool {
			return parquet.BooleanValue(rv.Bool()), nil
		}
	}
	return parquet.Value{}, fmt.Errorf("want %v, got %T", k, v)
}

// ReadTable reads a flat Parquet file: its columns in file order, its rows
// with each value nil (NULL), int64, float64, string or bool according to
// the column's kind, and its footer metadata. Besides files from WriteTable
// it reads other writers' flat files, widening INT32 to Int64 and FLOAT to
// Float64 and reading any BYTE_ARRAY as String.
func ReadTable(path string) ([]Column, [][]any, Metadata, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	fail := func(err error) ([]Column, [][]any, Metadata, error) {
		return nil, nil, nil, fmt.Errorf("results: read %s: %w", path, err)
	}

	fields := pf.Schema().Fields()
	cols := make([]Column, len(fields))
	phys := make([]parquet.Kind, len(fields))
	for i, fd := range fields {
		if !fd.Leaf() || fd.Repeated() {
			return fail(fmt.Errorf("column %q is nested or repeated", fd.Name()))
		}
		phys[i] = fd.Type().Kind()
		cols[i].Name = fd.Name()
		switch phys[i] {
		case parquet.Int32, parquet.Int64:
			cols[i].Kind = Int64
		case parquet.Float, parquet.Double:
			cols[i].Kind = Float64
		case parquet.ByteArray:
			cols[i].Kind = String
		case parquet.Boolean:
			cols[i].Kind = Bool
		default:
			return fail(fmt.Errorf("column %q has unsupported type %s", fd.Name(), phys[i]))
		}
	}

	out := make([][]any, 0, pf.NumRows())
	buf := make([]parquet.Row, 1024)
	for _, rg := range pf.RowGroups() {
		if err := readRowGroup(rg, buf, phys, &out); err != nil {
			return fail(fmt.Errorf("row %d: %w", len(out), err))
		}
	}
	if int64(len(out)) != pf.NumRows() {
		return fail(fmt.Errorf("got %d rows, footer says %d", len(out), pf.NumRows()))
	}
	return cols, out, metadataOf(pf), nil
}

// readRowGroup appends the rows of rg to out. Values are copied out of buf
// at once because parquet-go reuses its memory on the next ReadRows.
func readRowGroup(rg parquet.RowGroup, buf []parquet.Row, phys []parquet.Kind, out *[][]any) (err error) {
	rows := rg.Rows()
	defer func() {
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		n, err := rows.ReadRows(buf)
		for _, prow := range buf[:n] {
			row := make([]any, len(phys))
			for _, v := range prow {
				c := v.Column()
				if c < 0 || c >= len(row) {
					return fmt.Errorf("value for column %d of %d", c, len(row))
				}
				row[c] = fromValue(phys[c], v)
			}
			*out = append(*out, row)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil // no progress and no error: do not spin
		}
	}
}

// fromValue converts a parquet value of physical kind k to its Go value.
func fromValue(k parquet.Kind, v parquet.Value) any {
	if v.IsNull() {
		return nil
	}
	switch k {
	case parquet.Int32:
		return int64(v.Int32())
	case parquet.Int64:
		return v.Int64()
	case parquet.Float:
		return float64(v.Float())
	case parquet.Double:
		return v.Double()
	case parquet.ByteArray:
		return string(v.ByteArray())
	case parquet.Boolean:
		return v.Boolean()
	}
	return nil
}
