//! Logical plans: what the engine executes. A [`Plan`] is a query with the
//! rules it depends on, grouped into strata in evaluation order; each rule
//! is a [`RulePlan`], a sequence of steps over numbered variable slots.
//! `Display` prints the plan as an indented tree (`:explain`, golden tests).

use std::fmt;

use crate::ast::{Aggregate, ArithOp, CompareOp, TypeName};

/// A constant after `let` substitution; symbols are still names.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Text.
    Str(String),
    /// A symbol, by name.
    Sym(String),
    /// UTC microseconds.
    Time(i64),
    /// A boolean.
    Bool(bool),
    /// Null.
    Null,
}

impl fmt::Display for Constant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Constant::Int(i) => write!(f, "{i}"),
            Constant::Float(x) => write!(f, "{x:?}"),
            Constant::Str(s) => write!(f, "{s:?}"),
            Constant::Sym(s) => f.write_str(s),
            Constant::Time(t) => write!(f, "@{t}"),
            Constant::Bool(b) => write!(f, "{b}"),
            Constant::Null => f.write_str("null"),
        }
    }
}

/// A value computed from bindings.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// The variable in this slot.
    Slot(usize),
    /// A constant.
    Const(Constant),
    /// A parameter supplied at run time.
    Param(String),
    /// Arithmetic.
    Arith(Box<Term>, ArithOp, Box<Term>),
    /// Negation.
    Neg(Box<Term>),
}

/// How an atom's argument is used when the atom is matched.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Must equal this (already bound) term.
    Bound(Term),
    /// Binds this slot (its first occurrence).
    Bind(usize),
    /// `_`: anything.
    Any,
}

/// Which relation an atom reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelRef {
    /// A stored relation, by name.
    Stored(String),
    /// A relation derived by rules: index into [`Plan::derived`].
    Derived(usize),
}

/// One step of a rule body, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Match (or, negated, require the absence of) tuples of a relation.
    Atom {
        /// The relation.
        rel: RelRef,
        /// Per column.
        args: Vec<Arg>,
        /// `not rel(...)`.
        negated: bool,
    },
    /// Keep bindings for which the comparison holds.
    Filter(Term, CompareOp, Term),
    /// Bind a slot to a computed value (`X = Y + 1` with `X` unbound).
    Assign(usize, Term),
    /// Run a retrieval operator and match its `(id, score, rank)` rows
    /// against `args` (one to three of them, in that order).
    Ranked {
        /// The operator.
        op: RankedPlan,
        /// Per output column used.
        args: Vec<Arg>,
    },
}

/// How `near` compares vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Cosine similarity (higher is closer).
    Cosine,
    /// Dot product (higher is closer).
    Dot,
    /// Euclidean distance, scored negated (higher is closer).
    L2,
}

impl Metric {
    /// The metric called `name`.
    pub fn from_name(name: &str) -> Option<Metric> {
        Some(match name {
            "cosine" => Metric::Cosine,
            "dot" => Metric::Dot,
            "l2" => Metric::L2,
            _ => return None,
        })
    }

    /// Its name in the language.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Cosine => "cosine",
            Metric::Dot => "dot",
            Metric::L2 => "l2",
        }
    }
}

/// A retrieval operator, resolved against the catalog. Each kind's
/// payload is its own struct, so an operator's plan travels whole (to
/// the engine file that runs it, `engine/src/retrieval/<op>.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum RankedPlan {
    /// `near`
    Near(NearPlan),
    /// `bm25`
    Bm25(Bm25Plan),
    /// `top`
    Top(TopPlan),
    /// `decayed`
    Decayed(DecayedPlan),
    /// `hops`
    Hops(HopsPlan),
    /// `rrf`
    Rrf(RrfPlan),
}

impl RankedPlan {
    /// The terms it needs evaluated, in the order the engine consumes
    /// their values (nested `rrf` inputs depth first).
    pub fn input_terms(&self) -> Vec<&Term> {
        fn walk<'p>(op: &'p RankedPlan, out: &mut Vec<&'p Term>) {
            match op {
                RankedPlan::Near(NearPlan { query, filters, .. })
                | RankedPlan::Bm25(Bm25Plan { query, filters, .. }) => {
                    out.push(query);
                    out.extend(filters.iter().map(|(_, term)| term));
                }
                RankedPlan::Top(TopPlan { filters, .. }) => {
                    out.extend(filters.iter().map(|(_, term)| term))
                }
                RankedPlan::Decayed(DecayedPlan {
                    half_life, filters, ..
                }) => {
                    out.push(half_life);
                    out.extend(filters.iter().map(|(_, term)| term));
                }
                RankedPlan::Hops(HopsPlan { start, .. }) => out.push(start),
                RankedPlan::Rrf(RrfPlan { inputs, .. }) => {
                    inputs.iter().for_each(|(_, i)| walk(i, out))
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// Whether it reads the background indexes (embeddings or text),
    /// which may lag the store.
    pub fn searches_text(&self) -> bool {
        match self {
            RankedPlan::Near(_) | RankedPlan::Bm25(_) => true,
            RankedPlan::Top(_) | RankedPlan::Decayed(_) | RankedPlan::Hops(_) => false,
            RankedPlan::Rrf(rrf) => rrf.inputs.iter().any(|(_, i)| i.searches_text()),
        }
    }
}

/// Nearest rows of `rel` to a vector (matched against `vector_column`) or
/// to text (embedded, matched against `text_column`'s embeddings).
#[derive(Clone, Debug, PartialEq)]
pub struct NearPlan {
    /// The relation searched.
    pub rel: String,
    /// Its first vector column, if any.
    pub vector_column: Option<usize>,
    /// Its first `embed` column, if any.
    pub text_column: Option<usize>,
    /// The query vector or text.
    pub query: Term,
    /// How many rows.
    pub k: Count,
    /// How vectors compare.
    pub metric: Metric,
    /// Only rows whose column (by position) equals the term's value are
    /// searched: the live rows are narrowed before any scoring, so the
    /// search is exact within them (a tenant's rows, say).
    pub filters: Vec<(usize, Term)>,
}

/// Best BM25 matches of `rel`'s `search` columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Bm25Plan {
    /// The relation searched.
    pub rel: String,
    /// Its `search` columns.
    pub columns: Vec<usize>,
    /// The words.
    pub query: Term,
    /// How many rows.
    pub k: Count,
    /// Restrictions on the rows searched, as in [`NearPlan::filters`].
    pub filters: Vec<(usize, Term)>,
}

/// The rows of `rel` with the largest values in `column` (a number or a
/// time), scored by that value.
#[derive(Clone, Debug, PartialEq)]
pub struct TopPlan {
    /// The relation read.
    pub rel: String,
    /// The column ranked by (its position).
    pub column: usize,
    /// How many rows.
    pub k: Count,
    /// Restrictions on the rows read, as in [`NearPlan::filters`].
    pub filters: Vec<(usize, Term)>,
}

/// The rows of `rel` with the largest values in `column` once each is
/// halved every `half_life` days from its `since` time to the query's
/// `as_of` instant (a `since` after it does not grow the value).
#[derive(Clone, Debug, PartialEq)]
pub struct DecayedPlan {
    /// The relation read.
    pub rel: String,
    /// The number that decays (its position).
    pub column: usize,
    /// The time it decays from (its position).
    pub since: usize,
    /// Days for the value to halve (zero or less: no decay).
    pub half_life: Term,
    /// How many rows.
    pub k: Count,
    /// Restrictions on the rows read, as in [`NearPlan::filters`].
    pub filters: Vec<(usize, Term)>,
}

/// Nodes within `depth` links of `start`.
#[derive(Clone, Debug, PartialEq)]
pub struct HopsPlan {
    /// The node walked from.
    pub start: Term,
    /// At most this many links.
    pub depth: u32,
    /// The linking relations (empty: every relation whose first two
    /// columns are symbols).
    pub edges: Vec<String>,
}

/// Reciprocal-rank fusion: score = sum of weight / (k + rank).
#[derive(Clone, Debug, PartialEq)]
pub struct RrfPlan {
    /// Weighted inputs.
    pub inputs: Vec<(f64, RankedPlan)>,
    /// The rank offset.
    pub k: u64,
}

/// A count fixed in the text or given as a `$parameter` when the plan runs
/// (a ranked operator's `k`, a query's `limit`).
#[derive(Clone, Debug, PartialEq)]
pub enum Count {
    /// A number written in the query (checked when it was compiled).
    Fixed(u64),
    /// A parameter's name, without the `$`.
    Param(String),
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::Fixed(n) => write!(f, "{n}"),
            Count::Param(name) => write!(f, "${name}"),
        }
    }
}

/// The default `k` of `rrf` (Cormack et al. 2009).
pub const RRF_K: u64 = 60;

struct ShowRanked<'a>(&'a RankedPlan, &'a [String]);

impl fmt::Display for ShowRanked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let slots = self.1;
        match self.0 {
            RankedPlan::Near(NearPlan {
                rel,
                query,
                k,
                metric,
                ..
            }) => write!(
                f,
                "near({rel}, {}, {k}, {})",
                ShowTerm(query, slots),
                metric.name()
            ),
            RankedPlan::Bm25(Bm25Plan { rel, query, k, .. }) => {
                write!(f, "bm25({rel}, {}, {k})", ShowTerm(query, slots))
            }
            RankedPlan::Top(TopPlan { rel, column, k, .. }) => {
                write!(f, "top({rel}, #{column}, {k})")
            }
            RankedPlan::Decayed(DecayedPlan {
                rel,
                column,
                since,
                half_life,
                k,
                ..
            }) => write!(
                f,
                "decayed({rel}, #{column}, #{since}, {}, {k})",
                ShowTerm(half_life, slots)
            ),
            RankedPlan::Hops(HopsPlan {
                start,
                depth,
                edges,
            }) => {
                write!(f, "hops({}, {depth}", ShowTerm(start, slots))?;
                if !edges.is_empty() {
                    write!(f, ", [{}]", edges.join(", "))?;
                }
                f.write_str(")")
            }
            RankedPlan::Rrf(RrfPlan { inputs, k }) => {
                write!(f, "rrf(k={k}")?;
                for (w, input) in inputs {
                    if *w == 1.0 {
                        write!(f, ", {}", ShowRanked(input, slots))?;
                    } else {
                        write!(f, ", {w}*{}", ShowRanked(input, slots))?;
                    }
                }
                f.write_str(")")
            }
        }
    }
}

/// What a head column produces.
#[derive(Clone, Debug, PartialEq)]
pub enum HeadTerm {
    /// A value.
    Value(Term),
    /// An aggregate over the slot's values, grouped by the other columns.
    Aggregate(Aggregate, usize),
}

/// One rule, compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct RulePlan {
    /// The derived relation it adds to.
    pub head: usize,
    /// Head columns.
    pub head_terms: Vec<HeadTerm>,
    /// Body steps in execution order.
    pub steps: Vec<Step>,
    /// Variable names by slot (for display).
    pub slots: Vec<String>,
}

impl RulePlan {
    /// Whether any head column aggregates.
    pub fn aggregates(&self) -> bool {
        self.head_terms
            .iter()
            .any(|t| matches!(t, HeadTerm::Aggregate(..)))
    }
}

/// A derived relation.
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    /// Its name (the query's own output is `?`).
    pub name: String,
    /// Number of columns.
    pub arity: usize,
}

/// Rules evaluated together to a fixpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Stratum {
    /// The derived relations it defines.
    pub relations: Vec<usize>,
    /// Their rules.
    pub rules: Vec<RulePlan>,
    /// Whether its relations depend on themselves (needs iteration).
    pub recursive: bool,
    /// The recursion is a graph search the executor runs instead of
    /// joining round by round (`compile/closure.rs`).
    pub closure: Option<Closure>,
}

/// A recursive stratum that is the transitive closure of one binary
/// relation, or, once demand bound its source, what one node reaches:
/// computed by searching the relation's edges (breadth first, each node
/// once per source) instead of joining the paths found so far with the
/// edges until nothing is new. The answer is the same set.
#[derive(Clone, Debug, PartialEq)]
pub struct Closure {
    /// The edges: a two-column relation the stratum does not define.
    pub edges: RelRef,
    /// The rule that reads the edges alone (the base case), by its index
    /// among the stratum's rules.
    pub base: usize,
    /// `None`: every pair `(X, Y)` with a path from `X` to `Y` (the
    /// stratum's relation has two columns); `Some`: every node a path
    /// reaches from this value (one column).
    pub from: Option<Term>,
    /// Paths are followed against the edges' direction: the nodes from
    /// which `from` is reached (`r(X) :- e(X, c). r(X) :- e(X, Y), r(Y).`).
    pub backward: bool,
    /// The relation has two columns and this one holds `from` itself in
    /// every row: a closure asked from a bound node, as `demand.rs`
    /// specialises it (`t[0=c](c, Y)`).
    pub pinned: Option<usize>,
}

/// A compiled query.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Every derived relation; the last is the query's output.
    pub derived: Vec<Derived>,
    /// Strata in evaluation order; the last holds the query's own rule.
    pub strata: Vec<Stratum>,
    /// Output column names (the query's variables in order of appearance).
    pub columns: Vec<String>,
    /// `as_of`: valid time (a time constant or a parameter).
    pub as_of: Option<Term>,
    /// `known_at`: transaction time.
    pub known_at: Option<Term>,
    /// `history rel(...)`: list every version of the stored relation.
    pub history: bool,
    /// `(output column, descending)`.
    pub order_by: Vec<(usize, bool)>,
    /// Row limit.
    pub limit: Option<Count>,
}

/// A declared column type for the catalog (mirrors storage's types without
/// depending on it).
pub type ColumnTypeName = TypeName;

fn op_text(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "=",
        CompareOp::Ne => "!=",
        CompareOp::Lt => "<",
        CompareOp::Le => "<=",
        CompareOp::Gt => ">",
        CompareOp::Ge => ">=",
    }
}

struct ShowTerm<'a>(&'a Term, &'a [String]);

impl fmt::Display for ShowTerm<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Term::Slot(s) => f.write_str(self.1.get(*s).map_or("?", String::as_str)),
            Term::Const(c) => write!(f, "{c}"),
            Term::Param(p) => write!(f, "${p}"),
            Term::Arith(a, op, b) => {
                let op = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                };
                write!(f, "({} {op} {})", ShowTerm(a, self.1), ShowTerm(b, self.1))
            }
            Term::Neg(a) => write!(f, "-{}", ShowTerm(a, self.1)),
        }
    }
}

/// Arguments as `:explain` shows them: `=term` compared, `X` bound, `_`.
fn show_args(args: &[Arg], slots: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| match a {
            Arg::Bound(t) => format!("={}", ShowTerm(t, slots)),
            Arg::Bind(s) => slots[*s].clone(),
            Arg::Any => "_".into(),
        })
        .collect()
}

impl Plan {
    fn rel_name<'a>(&'a self, rel: &'a RelRef) -> String {
        match rel {
            RelRef::Stored(name) => format!("scan {name}"),
            RelRef::Derived(i) => format!("read {}", self.derived[*i].name),
        }
    }

    fn write_rule(&self, f: &mut fmt::Formatter<'_>, rule: &RulePlan, indent: &str) -> fmt::Result {
        let slots = &rule.slots;
        let head: Vec<String> = rule
            .head_terms
            .iter()
            .map(|t| match t {
                HeadTerm::Value(term) => ShowTerm(term, slots).to_string(),
                HeadTerm::Aggregate(agg, s) => {
                    format!("{}({})", format!("{agg:?}").to_lowercase(), slots[*s])
                }
            })
            .collect();
        writeln!(
            f,
            "{indent}rule {}({})",
            self.derived[rule.head].name,
            head.join(", ")
        )?;
        for step in &rule.steps {
            match step {
                Step::Atom { rel, args, negated } => {
                    let args = show_args(args, slots);
                    let what = if *negated { "anti-join" } else { "join" };
                    writeln!(
                        f,
                        "{indent}  {what} {}({})",
                        self.rel_name(rel),
                        args.join(", ")
                    )?;
                }
                Step::Filter(a, op, b) => {
                    writeln!(
                        f,
                        "{indent}  filter {} {} {}",
                        ShowTerm(a, slots),
                        op_text(*op),
                        ShowTerm(b, slots)
                    )?;
                }
                Step::Assign(s, t) => {
                    writeln!(f, "{indent}  let {} = {}", slots[*s], ShowTerm(t, slots))?
                }
                Step::Ranked { op, args } => {
                    let args = show_args(args, slots);
                    writeln!(
                        f,
                        "{indent}  rank {} as ({})",
                        ShowRanked(op, slots),
                        args.join(", ")
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut header = format!("query ({})", self.columns.join(", "));
        if let Some(t) = &self.as_of {
            header += &format!(" as_of {}", ShowTerm(t, &[]));
        }
        if let Some(t) = &self.known_at {
            header += &format!(" known_at {}", ShowTerm(t, &[]));
        }
        if self.history {
            header += " history";
        }
        if !self.order_by.is_empty() {
            let keys: Vec<String> = self
                .order_by
                .iter()
                .map(|(c, desc)| {
                    format!("{}{}", self.columns[*c], if *desc { " desc" } else { "" })
                })
                .collect();
            header += &format!(" order by {}", keys.join(", "));
        }
        if let Some(n) = &self.limit {
            header += &format!(" limit {n}");
        }
        writeln!(f, "{header}")?;
        for (i, stratum) in self.strata.iter().enumerate() {
            let names: Vec<&str> = stratum
                .relations
                .iter()
                .map(|&r| self.derived[r].name.as_str())
                .collect();
            let kind = match (&stratum.closure, stratum.recursive) {
                (Some(c), _) => {
                    let edges = match &c.edges {
                        RelRef::Stored(name) => name.as_str(),
                        RelRef::Derived(d) => self.derived[*d].name.as_str(),
                    };
                    match &c.from {
                        None => format!("closure of {edges}: a search from every node"),
                        Some(t) if c.backward => {
                            format!(
                                "what reaches {} along {edges}: one search",
                                ShowTerm(t, &[])
                            )
                        }
                        Some(t) => format!(
                            "reached from {} along {edges}: one search",
                            ShowTerm(t, &[])
                        ),
                    }
                }
                (None, true) => "semi-naive fixpoint".to_string(),
                (None, false) => "once".to_string(),
            };
            writeln!(f, "  stratum {i} [{}] ({kind})", names.join(", "))?;
            for rule in &stratum.rules {
                self.write_rule(f, rule, "    ")?;
            }
        }
        Ok(())
    }
}
