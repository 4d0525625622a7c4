//! Golden tests for the compiler's passes: each query in
//! `tests/golden/*.dl` is printed as each pass leaves it (resolved, strata,
//! plan), or as the error that stopped it, rendered as the shell shows it.
//! The script's `:create` statements are the catalog and its rules and
//! `let`s are in scope for the queries after them, as in the shell.
//!
//! Refresh the expected files with `UPDATE_GOLDEN=1 cargo test -p
//! chronolog-ql --test passes`.

use std::fmt::Write;
use std::path::Path;

use chronolog_ql::ast::{Expr, Rule, Statement};
use chronolog_ql::{Catalog, ColumnInfo, Lets, constant, lower, parse, resolve, stratify};

/// The stored relations declared so far.
#[derive(Default)]
struct Declared(Vec<(String, Vec<ColumnInfo>)>);

impl Catalog for Declared {
    fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, cols)| cols.clone())
    }
}

/// Every query of `src`, through each pass.
fn run_script(src: &str) -> String {
    let program = match parse(src) {
        Ok(p) => p,
        Err(e) => panic!("the script does not parse:\n{}", e.render(src)),
    };
    let mut catalog = Declared::default();
    let mut rules: Vec<Rule> = Vec::new();
    let mut lets = Lets::new();
    let mut out = String::new();
    for statement in program.statements {
        match statement {
            Statement::Create(c) => {
                let columns = c
                    .columns
                    .iter()
                    .map(|col| ColumnInfo {
                        search: col.search.is_some(),
                        embed: col.embed.is_some(),
                        ..ColumnInfo::new(col.name.text.clone(), col.ty)
                    })
                    .collect();
                catalog.0.push((c.name.text.clone(), columns));
            }
            Statement::Rule(r) => rules.push(r),
            Statement::Let(l) => {
                if let Expr::Const(c, _) = &l.value {
                    lets.insert(l.name.text.clone(), constant(c));
                }
            }
            Statement::Query(q) => {
                let text = &src[q.span.start..q.span.end];
                let _ = writeln!(out, "{text}");
                let passes = resolve(&q, &rules, &catalog).and_then(|resolved| {
                    let strata = stratify(&resolved)?;
                    let plan = lower(&resolved, &strata, &lets, &catalog)?;
                    Ok(format!("{resolved}{strata}{plan}"))
                });
                match passes {
                    Ok(text) => out.push_str(&text),
                    Err(e) => out.push_str(&e.render(src)),
                }
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            _ => {}
        }
    }
    out
}

#[test]
fn each_pass_prints_what_it_hands_the_next() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dl"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty(), "no scripts in {}", dir.display());
    let mut failed = Vec::new();
    for script in scripts {
        let src = std::fs::read_to_string(&script).expect("script");
        let got = run_script(&src);
        let expected_path = script.with_extension("out");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&expected_path, &got).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            failed.push(format!(
                "{}: got\n{got}\nexpected\n{expected}",
                script.display()
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
