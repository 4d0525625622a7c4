//! Values as text: for tables a person reads (floats to six significant
//! digits, so transcripts do not depend on the CPU), for fact statements
//! a person can re-enter, and plain.

use chronolog_storage::{Replaced, Timestamp};

use super::Session;
use crate::val::Val;

impl Session {
    /// A value as a person reads it in a table: as [`Session::render`],
    /// but a float to six significant digits. Scores computed with SIMD
    /// differ in their last bits from one CPU to another; seventeen digits
    /// help no reader, and would make every transcript CPU-dependent.
    /// (JSON and CSV keep full precision.)
    pub fn render_display(&self, value: &Val) -> String {
        match value {
            Val::Float(x) => float_display(*x),
            other => self.render(other),
        }
    }

    /// A fact a commit withdrew whole, as a fact statement a person can
    /// read and re-enter: `w(alice, a) valid 2021-01-01 .. inf`.
    pub fn render_replaced(&self, replaced: &Replaced) -> String {
        let name = self
            .store
            .schema(replaced.relation)
            .map_or_else(|_| format!("#{}", replaced.relation.0), |s| s.name.clone());
        let values: Vec<String> = replaced
            .values
            .iter()
            .map(|v| self.render(&Val::from_ref(v.as_ref())))
            .collect();
        let bound = |t: Timestamp| match t {
            Timestamp::MIN => "-inf".to_string(),
            Timestamp::MAX => "inf".to_string(),
            t => t.to_string(),
        };
        format!(
            "{name}({}) valid {} .. {}",
            values.join(", "),
            bound(replaced.valid.from),
            bound(replaced.valid.to)
        )
    }

    /// A value as text: symbols by name, times as ISO dates.
    pub fn render(&self, value: &Val) -> String {
        match value {
            Val::Null => "null".into(),
            Val::Bool(b) => b.to_string(),
            Val::Int(i) => i.to_string(),
            Val::Float(x) => format!("{x}"),
            Val::Str(s) => s.to_string(),
            Val::Sym(id) => match self.symbols.virtual_name(*id) {
                Some(name) => name.to_string(),
                None => self
                    .store
                    .symbol_name(chronolog_storage::Symbol(*id))
                    .map(|n| n.to_string())
                    .unwrap_or_else(|_| format!("#{id}")),
            },
            Val::Bytes(b) => format!("bytes[{}]", b.len()),
            Val::Time(t) => Timestamp(*t).to_string(),
            Val::Vector(v) => format!("vec<{}>", v.len()),
            Val::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|v| self.render(v))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// `x` to six significant digits, trailing zeros dropped (`0.306786`,
/// `1250`, `3.33333e-7`).
fn float_display(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-4..=15).contains(&magnitude) {
        return format!("{x:.5e}");
    }
    let decimals = (5 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::float_display;

    #[test]
    fn floats_show_six_significant_digits() {
        assert_eq!(float_display(0.3067860007286072), "0.306786");
        assert_eq!(float_display(0.3067859709262848), "0.306786");
        assert_eq!(float_display(-0.021437322720885277), "-0.0214373");
        assert_eq!(float_display(1250.0), "1250");
        assert_eq!(float_display(33.333333333), "33.3333");
        assert_eq!(float_display(0.5), "0.5");
        assert_eq!(float_display(0.0), "0");
        assert_eq!(float_display(3.3333333e-7), "3.33333e-7");
    }
}
