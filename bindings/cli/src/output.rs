//! How answers print: aligned tables for people, JSON Lines and CSV for
//! programs.

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use std::time::Duration;

use chronolog_engine::{Output, Rows, Session};
use comfy_table::{Table, presets};

/// The output format (`:format`, `--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned tables with a row count; long answers are cut with a note.
    #[default]
    Table,
    /// One JSON object per statement, one per line; answers in full.
    Json,
    /// Answers only, a header row then one line per row, in full.
    Csv,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            other => Err(format!(
                "unknown format `{other}`: expected table, json or csv"
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
        })
    }
}

/// How the shell prints, as `:format`, `:maxrows` and `:timing` set it.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// The format.
    pub format: Format,
    /// Rows shown in a table before the rest is cut.
    pub max_rows: usize,
    /// Print how long each statement took.
    pub timing: bool,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            format: Format::Table,
            max_rows: 100,
            timing: false,
        }
    }
}

/// Prints what one statement produced.
pub fn print(
    db: &Session,
    output: &Output,
    style: &Style,
    elapsed: Duration,
    out: &mut dyn Write,
) -> io::Result<()> {
    let took = style.timing.then(|| format_duration(elapsed));
    match style.format {
        Format::Json => {
            let mut json = chronolog_engine::json::output(db, output);
            if let (Some(object), true) = (json.as_object_mut(), style.timing) {
                object.insert(
                    "elapsed_ms".into(),
                    serde_json::json!(elapsed.as_secs_f64() * 1e3),
                );
            }
            writeln!(out, "{json}")
        }
        Format::Csv => match output {
            Output::Rows(rows) => write_csv(db, rows, out),
            _ => Ok(()),
        },
        Format::Table => {
            match output {
                Output::Rows(rows) => write_table(db, rows, style.max_rows, out)?,
                Output::Created(name) => writeln!(out, "created {name}")?,
                Output::Bound(name) => writeln!(out, "let {name}")?,
                Output::RuleAdded(name) => writeln!(out, "rule {name}")?,
                Output::Committed(info) => {
                    writeln!(
                        out,
                        "committed: {} added, {} cut, {} closed",
                        info.rows_added, info.rows_cut, info.rows_closed
                    )?;
                    for replaced in &info.replaced {
                        writeln!(
                            out,
                            "replaced: {} (row {}), all of its valid time taken by a new fact",
                            db.render_replaced(replaced),
                            replaced.row
                        )?;
                    }
                }
                Output::Schemas(schemas) if schemas.is_empty() => writeln!(out, "no relations")?,
                Output::Schemas(schemas) => {
                    for schema in schemas {
                        writeln!(out, "{}", chronolog_engine::declaration(schema))?;
                    }
                }
            }
            match took {
                Some(took) => writeln!(out, "time: {took}"),
                None => Ok(()),
            }
        }
    }
}

fn write_table(db: &Session, rows: &Rows, max_rows: usize, out: &mut dyn Write) -> io::Result<()> {
    let shown = rows.len().min(max_rows);
    if !rows.columns.is_empty() {
        let mut table = Table::new();
        table.load_preset(presets::UTF8_FULL_CONDENSED);
        table.set_header(&rows.columns);
        for row in rows.iter().take(shown) {
            table.add_row(row.iter().map(|v| db.render_display(v)));
        }
        writeln!(out, "{table}")?;
    }
    let n = rows.len();
    let noun = if n == 1 { "row" } else { "rows" };
    if shown < n {
        writeln!(
            out,
            "({n} {noun}; the first {shown} shown: `:maxrows N` shows more, `:format csv` shows all)"
        )
    } else {
        writeln!(out, "({n} {noun})")
    }
}

fn write_csv(db: &Session, rows: &Rows, out: &mut dyn Write) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record(&rows.columns)?;
    for row in rows {
        csv.write_record(row.iter().map(|v| db.render(v)))?;
    }
    csv.flush()
}

/// `812 µs`, `3.2 ms`, `1.45 s`.
pub fn format_duration(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 1e3 {
        format!("{micros:.0} µs")
    } else if micros < 1e6 {
        format!("{:.1} ms", micros / 1e3)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(format_duration(Duration::from_micros(812)), "812 µs");
        assert_eq!(format_duration(Duration::from_micros(3_240)), "3.2 ms");
        assert_eq!(format_duration(Duration::from_millis(1_450)), "1.45 s");
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("csv".parse::<Format>(), Ok(Format::Csv));
        assert!("xml".parse::<Format>().is_err());
    }
}
