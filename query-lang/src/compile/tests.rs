use super::*;
use crate::ast::{Expr, Statement};
use crate::parse;
use crate::plan::*;

struct Stored;
impl Catalog for Stored {
    fn stored(&self, name: &str) -> Option<Vec<ColumnInfo>> {
        let sym = |n: &str| ColumnInfo::new(n, TypeName::Sym);
        match name {
            "works_at" => Some(vec![sym("person"), sym("company")]),
            "knows" => Some(vec![sym("a"), sym("b")]),
            "blocked" => Some(vec![sym("who")]),
            "episode" => Some(vec![
                sym("id"),
                ColumnInfo {
                    search: true,
                    embed: true,
                    ..ColumnInfo::new("text", TypeName::Str)
                },
            ]),
            "doc" => Some(vec![sym("id"), ColumnInfo::new("v", TypeName::Vector(3))]),
            _ => None,
        }
    }
}

/// A program's rules and its query, for the rewrites' unit tests.
pub(super) fn program(text: &str) -> (ast::Query, Vec<Rule>) {
    let mut rules = Vec::new();
    let mut query = None;
    for statement in parse(text).expect("parse").statements {
        match statement {
            Statement::Rule(r) => rules.push(r),
            Statement::Query(q) => query = Some(q),
            _ => {}
        }
    }
    (query.expect("a query"), rules)
}

fn compile(src: &str) -> Result<Plan, CompileError> {
    let program = parse(src).expect("parse");
    let mut rules = Vec::new();
    let mut lets = Lets::new();
    let mut last = None;
    for st in program.statements {
        match st {
            Statement::Rule(r) => rules.push(r),
            Statement::Let(l) => {
                if let Expr::Const(c, _) = &l.value {
                    lets.insert(l.name.text.clone(), constant(c));
                }
            }
            Statement::Query(q) => last = Some(q),
            _ => {}
        }
    }
    compile_query(&last.expect("a query"), &rules, &lets, &Stored)
}

#[test]
fn a_long_chain_of_rules_compiles_on_a_small_stack() {
    let n = 40_000;
    let mut src = String::new();
    for i in 0..n {
        src.push_str(&format!("r{i}(X) :- r{}(X).\n", i + 1));
    }
    src.push_str(&format!("r{n}(X) :- knows(X, _).\n?- r0(X)."));
    let plan = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || compile(&src).map(|p| p.strata.len()))
        .expect("spawn")
        .join()
        .expect("no stack overflow");
    assert_eq!(plan.expect("compile"), n + 2);
}

#[test]
fn explains_a_recursive_rule_with_negation() {
    // `alice` is passed through the recursion unchanged: the rules are
    // specialised to it (`demand.rs`), and read only what she reaches, by
    // one search (`closure.rs`).
    let plan = compile(
        "reach(X, Y) :- knows(X, Y).
             reach(X, Y) :- reach(X, Z), knows(Z, Y).
             ?- reach(alice, Y), not blocked(Y).",
    )
    .expect("compile");
    assert_eq!(
        plan.to_string(),
        "query (Y)
  stratum 0 [reach[0=alice]] (reached from alice along knows: one search)
    rule reach[0=alice](alice, Y)
      join scan knows(=alice, Y)
    rule reach[0=alice](alice, Y)
      join read reach[0=alice](=alice, Z)
      join scan knows(=Z, Y)
  stratum 1 [?] (once)
    rule ?(Y)
      join read reach[0=alice](=alice, Y)
      anti-join scan blocked(=Y)
"
    );
}

#[test]
fn the_design_card_query_resolves_let_names() {
    let plan = compile("let t1 = 2022-01-01. ?- works_at(x, Y) as_of t1.").expect("compile");
    assert_eq!(
        plan.as_of,
        Some(Term::Const(Constant::Time(1_640_995_200_000_000)))
    );
    assert_eq!(plan.columns, vec!["Y"]);
}

#[test]
fn the_design_card_retrieval_query_compiles_to_a_ranked_step() {
    let plan = compile(
        r#"?- rrf(near(episode, "where does alice work", 20),
                      bm25(episode, "alice work", 20),
                      hops(alice, 2)) limit 10."#,
    )
    .expect("compile");
    assert_eq!(
        plan.to_string(),
        r#"query (Id, Score, Rank) order by Rank limit 10
  stratum 0 [?] (once)
    rule ?(Id, Score, Rank)
      rank rrf(k=60, near(episode, "where does alice work", 20, cosine), bm25(episode, "alice work", 20), hops(alice, 2)) as (Id, Score, Rank)
"#
    );
    let plan = compile(
            "?- near(doc, $v, 5, l2) as (D, S), episode(D, T), rrf(2 * hops(D, 1, [knows]), k = 10) as (N).",
        )
        .expect("compile");
    assert_eq!(plan.columns, vec!["D", "S", "T", "N"]);
    assert!(
        plan.to_string()
            .contains("rank rrf(k=10, 2*hops(D, 1, [knows])) as (N)")
    );
}

#[test]
fn rejects_what_cannot_run() {
    let msg = |src: &str| compile(src).expect_err("should fail").kind.to_string();
    assert_eq!(msg("?- lives_in(X, Y)."), "unknown relation `lives_in`");
    assert_eq!(
        msg("?- works_at(X)."),
        "`works_at` has 2 columns, got 1 arguments"
    );
    assert_eq!(
        msg("?- works_at(X, Y), Z > 3."),
        "variable `Z` is unsafe: it is not bound by a positive atom before it is used"
    );
    assert_eq!(
        msg("p(X) :- knows(X, _), not q(X). q(X) :- knows(X, _), not p(X). ?- p(X)."),
        "negation or aggregation through recursion: p -> q -> p"
    );
    assert_eq!(
        msg("p(X, Y) :- knows(X, _). ?- p(X, Y)."),
        "variable `Y` in the head is not bound by the body"
    );
    assert_eq!(
        msg("?- works_at(X, Y) as_of soon."),
        "`soon` is not bound by `let`; expected a time"
    );
    assert_eq!(
        msg("?- near(knows, \"x\", 3) as (I)."),
        "`knows` has no vector column and no `embed` column for `near`"
    );
    assert_eq!(
        msg("?- bm25(doc, \"x\", 3) as (I)."),
        "`doc` has no `search` column for `bm25`"
    );
    assert_eq!(
        msg("?- near(doc, $v, 3, manhattan) as (I)."),
        "unknown metric `manhattan`: expected `cosine`, `dot` or `l2`"
    );
    assert_eq!(
        msg("?- knows(X, Y), hops(X, 2)."),
        "name the ranked columns, e.g. `as (Id, Score, Rank)`"
    );
    assert_eq!(
        msg("?- hops(X, 2) as (N), N != X."),
        "variable `X` is unsafe: it is not bound by a positive atom before it is used"
    );
    assert_eq!(
        msg("?- hops(alice, 2) as (A, B, C, D)."),
        "a ranked relation has three columns (id, score, rank); got 4 names"
    );
    assert_eq!(
        msg("?- history knows(X, Y), knows(Y, X)."),
        "`history` takes exactly one atom of a stored relation"
    );
}

/// The closure or reach the planner marked the first stratum with.
fn closure(src: &str) -> Option<Closure> {
    compile(src).expect("compiles").strata[0].closure.clone()
}

#[test]
fn closures_and_reaches_are_recognised_in_every_form() {
    let edges = RelRef::Stored("knows".into());
    for rules in [
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- knows(Y, Z), t(X, Y).",
        "t(X, Z) :- knows(X, Y), t(Y, Z). t(A, B) :- knows(A, B).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), t(Y, Z).",
    ] {
        let c = closure(&format!("{rules} ?- t(X, Y).")).expect(rules);
        assert_eq!(
            (&c.edges, &c.from, c.backward, c.pinned),
            (&edges, &None, false, None),
            "{rules}"
        );
    }
    let alice = Some(Term::Const(Constant::Sym("alice".into())));
    let c = closure("r(Y) :- knows(alice, Y). r(Z) :- r(Y), knows(Y, Z). ?- r(Y).").expect("reach");
    assert_eq!((&c.from, c.backward, c.pinned), (&alice, false, None));
    let c = closure("r(X) :- knows(X, alice). r(X) :- knows(X, Y), r(Y). ?- r(X).").expect("back");
    assert_eq!((&c.from, c.backward, c.pinned), (&alice, true, None));
    // A closure asked from a bound node, as demand specialises it.
    let c = closure("t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z). ?- t(alice, Y).")
        .expect("bound");
    assert_eq!((&c.from, c.backward, c.pinned), (&alice, false, Some(0)));
    let c = closure("t(X, Z) :- knows(X, Y), t(Y, Z). t(X, Y) :- knows(X, Y). ?- t(X, alice).")
        .expect("bound");
    assert_eq!((&c.from, c.backward, c.pinned), (&alice, true, Some(1)));
    let c = closure("r(Y) :- knows($who, Y). r(Z) :- r(Y), knows(Y, Z). ?- r(Y).").expect("param");
    assert_eq!(c.from, Some(Term::Param("who".into())));
}

#[test]
fn a_recursion_that_is_not_a_plain_closure_is_left_to_the_fixpoint() {
    for program in [
        // A filter, a third atom, a constant, a negation, a swapped head,
        // a second base, a self-loop edge, another edge relation.
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z), X != Z. ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z), works_at(Z, _). ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, bob), knows(Y, Z). ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z), not blocked(Z). ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(Z, X) :- t(X, Y), knows(Y, Z). ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(X, Y) :- works_at(X, Y). t(X, Z) :- t(X, Y), knows(Y, Z). ?- t(X, Y).",
        "t(X, X) :- knows(X, X). t(X, Z) :- t(X, Y), knows(Y, Z). ?- t(X, Y).",
        "t(X, Y) :- knows(X, Y). t(X, Z) :- t(X, Y), works_at(Y, Z). ?- t(X, Y).",
        "r(Y) :- knows(alice, Y). r(Z) :- r(Y), knows(Z, Y). ?- r(Y).",
        "r(Y) :- knows(alice, Y). r(Y) :- r(Y), knows(Y, Y). ?- r(Y).",
    ] {
        assert_eq!(closure(program), None, "{program}");
    }
}
