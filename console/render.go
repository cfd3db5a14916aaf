package console

import (
	"encoding/csv"
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
)

// renderResult prints rs and its footer. wallUS is the client-side time
// the statement took, printed next to graphd's own latency so that the
// network and client overhead shows.
func renderResult(w io.Writer, rs *client.ResultSet, format outputFormat, wallUS int64) error {
	if !rs.HasData() {
		_, err := fmt.Fprintf(w, "Execution succeeded (time spent %d/%d us)\n\n", rs.LatencyUS(), wallUS)
		return err
	}
	var body string
	switch format {
	case formatCSV:
		var err error
		if body, err = renderCSV(rs); err != nil {
			return err
		}
	default:
		body = renderTable(rs) + "\n"
	}
	_, err := fmt.Fprintf(w, "%sGot %d rows (time spent %d/%d us)\n\n", body, rs.Len(), rs.LatencyUS(), wallUS)
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

// formatError prints a failed statement as "[ERROR (code)]: message". The
// code is graphd's (E_SYNTAX, E_SEMANTIC, ...) when graphd answered, and
// the gRPC status code (Unavailable, DeadlineExceeded, ...) when it did
// not.
func formatError(err error) string {
	var qe *client.QueryError
	if errors.As(err, &qe) {
		return fmt.Sprintf("[ERROR (%s)]: %s", qe.Code, qe.Msg)
	}
	return fmt.Sprintf("[ERROR (%s)]: %v", status.Code(err), err)
}
