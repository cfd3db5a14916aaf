package console

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/client"
)

// outputFormat is how result rows print.
type outputFormat string

const (
	formatTable outputFormat = "table"
	formatCSV   outputFormat = "csv"
	formatJSON  outputFormat = "json"
)

// parseFormat checks a --format or :format value.
func parseFormat(s string) (outputFormat, error) {
	switch f := outputFormat(strings.ToLower(s)); f {
	case formatTable, formatCSV, formatJSON:
		return f, nil
	}
	return "", fmt.Errorf("%q: want table, csv or json", s)
}

// renderResult prints rs and its footer. wallUS is the client-side time
// the statement took, printed next to graphd's own latency so that the
// network and client overhead shows. JSON prints one object per line and
// no footer (see renderJSON), so that the output is JSON Lines.
func renderResult(w, info io.Writer, rs *client.ResultSet, format outputFormat, wallUS int64) error {
	if format == formatJSON {
		body, err := renderJSON(rs, wallUS)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", body)
		return err
	}
	if !rs.HasData() {
		_, err := fmt.Fprintf(info, "Execution succeeded (time spent %d/%d us)\n\n", rs.LatencyUS(), wallUS)
		return err
	}
	if format == formatCSV {
		// stdout is the CSV alone, for a pipe or a file; the row count
		// goes with the console's other messages.
		body, err := renderCSV(rs)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, body); err != nil {
			return err
		}
		_, err = fmt.Fprintf(info, "Got %d rows (time spent %d/%d us)\n\n", rs.Len(), rs.LatencyUS(), wallUS)
		return err
	}
	_, err := fmt.Fprintf(w, "%s\nGot %d rows (time spent %d/%d us)\n\n", renderTable(rs), rs.Len(), rs.LatencyUS(), wallUS)
	return err
}

// renderTable draws rs as NebulaGraph's console does: ASCII borders,
// headers as returned (go-pretty upper-cases them by default), every
// column left-aligned, cells as client.Row.Display prints them.
func renderTable(rs *client.ResultSet) string {
	tw := table.NewWriter()
	style := table.StyleDefault
	style.Format.Header = text.FormatDefault
	tw.SetStyle(style)

	columns := rs.Columns()
	header := make(table.Row, len(columns))
	configs := make([]table.ColumnConfig, len(columns))
	for i, name := range columns {
		header[i] = name
		configs[i] = table.ColumnConfig{Number: i + 1, Align: text.AlignLeft, AlignHeader: text.AlignLeft}
	}
	tw.AppendHeader(header)
	tw.SetColumnConfigs(configs)
	for i := range rs.Len() {
		row := rs.Row(i)
		cells := make(table.Row, row.Len())
		for j := range row.Len() {
			cells[j] = row.Display(j)
		}
		tw.AppendRow(cells)
	}
	return tw.Render()
}

// renderCSV writes rs as RFC 4180 CSV with a header line. Strings are
// written raw (CSV does its own quoting); everything else as in the table.
func renderCSV(rs *client.ResultSet) (string, error) {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	if err := cw.Write(rs.Columns()); err != nil {
		return "", fmt.Errorf("writing CSV: %w", err)
	}
	for i := range rs.Len() {
		row := rs.Row(i)
		cells := make([]string, row.Len())
		for j := range row.Len() {
			if s, ok := row.Value(j).(string); ok {
				cells[j] = s
			} else {
				cells[j] = row.Display(j)
			}
		}
		if err := cw.Write(cells); err != nil {
			return "", fmt.Errorf("writing CSV: %w", err)
		}
	}
	cw.Flush()
	return b.String(), cw.Error()
}

// jsonResult is a result as renderJSON prints it. Columns and rows are
// absent (nil) for a statement that returns no data set (USE, INSERT, ...)
// and [] for a data set without rows.
type jsonResult struct {
	Columns   *[]string `json:"columns,omitempty"`
	Rows      *[][]any  `json:"rows,omitempty"`
	LatencyUS int64     `json:"latency_us"`
	WallUS    int64     `json:"wall_us"`
}

// renderJSON renders rs as one line of JSON:
//
//	{"columns":["name","age"],"rows":[["Tim Duncan",42]],"latency_us":900,"wall_us":1200}
//
// Cells are JSON values: NULL is null, lists are arrays, maps are objects,
// floats that JSON cannot hold (NaN, ±Inf) and dates, times, datetimes and
// durations are strings as the table prints them unquoted. Graph values
// are objects too:
//
//	vertex {"vid":"a","tags":{"player":{"age":42,"name":"Tim"}}}
//	edge   {"type":"follow","src":"a","dst":"b","rank":0,"props":{"degree":95}}
//	path   {"nodes":[vertex, ...],"relationships":[edge, ...]}
//
// A path's relationships keep their stored src and dst, so a hop taken
// against an edge's direction shows as an edge whose dst is the node
// before it.
func renderJSON(rs *client.ResultSet, wallUS int64) ([]byte, error) {
	out := jsonResult{LatencyUS: rs.LatencyUS(), WallUS: wallUS}
	if rs.HasData() {
		cols := append([]string{}, rs.Columns()...)
		rows := make([][]any, rs.Len())
		for i := range rs.Len() {
			row := rs.Row(i)
			cells := make([]any, row.Len())
			for j := range row.Len() {
				cells[j] = client.JSONValue(row.Value(j))
			}
			rows[i] = cells
		}
		out.Columns, out.Rows = &cols, &rows
	}
	// Not json.Marshal: it escapes <, > and & for HTML, which turns
	// printed paths like <("a")-[:e@0 {}]->("b")> into \u003c...
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("writing JSON: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// formatError prints a failed statement as "[ERROR (code)]: message". The
// code is graphd's (E_SYNTAX, E_SEMANTIC, ...) when graphd answered,
// "console" for a console command, and the gRPC status code (Unavailable,
// DeadlineExceeded, ...) when graphd did not answer.
func formatError(err error) string {
	var ce *commandError
	if errors.As(err, &ce) {
		return fmt.Sprintf("[ERROR (console)]: %s", ce)
	}
	var qe *client.QueryError
	if errors.As(err, &qe) {
		return fmt.Sprintf("[ERROR (%s)]: %s", qe.Code, qe.Msg)
	}
	return fmt.Sprintf("[ERROR (%s)]: %v", status.Code(err), err)
}
