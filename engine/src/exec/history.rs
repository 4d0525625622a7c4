//! `history`: every version of the matching rows, with their four
//! bounds and their links.

use chronolog_ql::plan::{Arg, Plan, RelRef, Step};
use chronolog_storage::Value;

use super::*;
use crate::error::{Error, Result};
use crate::rows::Rows;
use crate::val::Val;

impl Executor<'_> {
    /// `history rel(args)`: every version of the matching stored rows.
    pub(super) fn history(&mut self, plan: &Plan) -> Result<Rows> {
        let rule = plan
            .strata
            .last()
            .and_then(|s| s.rules.first())
            .ok_or_else(|| Error::Internal("history plan without a rule".into()))?;
        let Some(Step::Atom {
            rel: RelRef::Stored(name),
            args,
            ..
        }) = rule.steps.first()
        else {
            return Err(Error::Internal("history needs one stored atom".into()));
        };
        let store = self.snapshot.store();
        let rel = store.relation_id(name)?;
        let mut scan = self.snapshot.scan(rel).history();
        let types = store.column_types(rel)?;
        let mut checks = Vec::new();
        for (c, a) in args.iter().enumerate() {
            if let Arg::Bound(t) = a {
                let v = self.eval(t, &[])?;
                let Some(v) = coerce_key(store, &types, &[c], std::slice::from_ref(&v))
                    .and_then(|k| k.first().cloned())
                else {
                    return Ok(Rows::from_rows(history_columns(plan), Vec::new()));
                };
                match v.to_value() {
                    Some(Value::Sym(s)) if self.symbols.is_virtual(s.0) => {
                        return Ok(Rows::from_rows(history_columns(plan), Vec::new()));
                    }
                    Some(value) => scan = scan.eq(c, value),
                    None => {}
                }
                checks.push((c, v));
            }
        }
        // Each version's bindings (every slot, hidden ones included) and
        // its bi-temporal columns, before the filters that compare
        // arguments bound by the atom itself (`history e(X, X)`).
        let mut versions: Vec<(Vec<Val>, [Val; 7])> = Vec::new();
        scan.for_each(|row| {
            let mut slots: Vec<Option<Val>> = vec![None; rule.slots.len()];
            for (c, a) in args.iter().enumerate() {
                if let Arg::Bind(s) = a {
                    let v = Val::from_ref(row.value(c));
                    if slots[*s].get_or_insert_with(|| v.clone()) != &v {
                        return;
                    }
                }
            }
            if !checks
                .iter()
                .all(|(c, v)| Val::from_ref(row.value(*c)) == *v)
            {
                return;
            }
            let (valid, tx) = (row.valid(), row.tx());
            let times = [
                Val::Time(valid.from.0),
                Val::Time(valid.to.0),
                Val::Time(tx.from.0),
                Val::Time(tx.to.0),
                Val::Int(i64::from(row.id())),
                row.supersedes()
                    .map_or(Val::Null, |r| Val::Int(i64::from(r))),
                row.provenance().map_or(Val::Null, |p| Val::Sym(p.0)),
            ];
            versions.push((
                slots.into_iter().map(|s| s.unwrap_or(Val::Null)).collect(),
                times,
            ));
        })?;
        let mut rows = Vec::with_capacity(versions.len());
        'version: for (bindings, times) in versions {
            for step in &rule.steps[1..] {
                if let Step::Filter(a, op, b) = step {
                    let (a, b) = (self.eval(a, &bindings)?, self.eval(b, &bindings)?);
                    if !self.compare(&a, *op, &b)? {
                        continue 'version;
                    }
                }
            }
            let mut out: Vec<Val> = bindings.into_iter().take(plan.columns.len()).collect();
            out.extend(times);
            rows.push(out);
        }
        let columns = history_columns(plan);
        if plan.order_by.is_empty() {
            // Versions in the order they were written, the first `limit`.
            let limit = resolve_limit(plan.limit.as_ref(), self.params)?;
            rows.truncate(limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX)));
            return Ok(Rows::from_rows(columns, rows));
        }
        let len = rows.len();
        let cells: Vec<Val> = rows.into_iter().flatten().collect();
        let symbols = self.symbol_order();
        Ok(Rows::sorted(
            columns,
            cells,
            len,
            &plan.order_by,
            resolve_limit(plan.limit.as_ref(), self.params)?,
            &symbols,
        ))
    }
}

pub(super) fn history_columns(plan: &Plan) -> Vec<String> {
    let mut columns = plan.columns.clone();
    columns.extend(
        [
            "valid_from",
            "valid_to",
            "tx_from",
            "tx_to",
            "row",
            "supersedes",
            "provenance",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    columns
}
