//! `Val`: the executor's value, hashable and totally ordered, so tuples can
//! live in hash sets (set semantics) and be sorted for stable output.
//!
//! Symbols stay interned ids; a symbol named in a query that the database has
//! never seen gets a *virtual* id from the top of the id space, so it can be
//! compared and printed but matches no stored row.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use chronolog_storage::{Symbol, Timestamp, Value, ValueRef};

/// A value during evaluation.
#[derive(Clone, Debug)]
pub enum Val {
    /// Absent.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Text.
    Str(Arc<str>),
    /// An interned (or virtual) symbol.
    Sym(u32),
    /// Bytes.
    Bytes(Arc<[u8]>),
    /// UTC microseconds.
    Time(i64),
    /// A vector.
    Vector(Arc<[f32]>),
    /// `collect(X)` output.
    List(Arc<[Val]>),
}

impl Val {
    fn rank(&self) -> u8 {
        match self {
            Val::Null => 0,
            Val::Bool(_) => 1,
            Val::Int(_) | Val::Float(_) => 2,
            Val::Time(_) => 3,
            Val::Sym(_) => 4,
            Val::Str(_) => 5,
            Val::Bytes(_) => 6,
            Val::Vector(_) => 7,
            Val::List(_) => 8,
        }
    }

    /// Whether the value owns no memory (a drop has nothing to free).
    pub(crate) fn is_plain(&self) -> bool {
        !matches!(
            self,
            Val::Str(_) | Val::Bytes(_) | Val::Vector(_) | Val::List(_)
        )
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// From a borrowed storage value.
    pub fn from_ref(v: ValueRef<'_>) -> Val {
        match v {
            ValueRef::Null => Val::Null,
            ValueRef::Bool(b) => Val::Bool(b),
            ValueRef::Int(i) => Val::Int(i),
            ValueRef::Float(x) => Val::Float(x),
            ValueRef::Str(s) => Val::Str(Arc::from(s)),
            ValueRef::Sym(s) => Val::Sym(s.0),
            ValueRef::Bytes(b) => Val::Bytes(Arc::from(b)),
            ValueRef::Time(t) => Val::Time(t.0),
            ValueRef::Vector(v) => Val::Vector(Arc::from(v)),
        }
    }

    /// To a storage value (`None` for lists, which cannot be stored).
    pub fn to_value(&self) -> Option<Value> {
        Some(match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Int(i) => Value::Int(*i),
            Val::Float(x) => Value::Float(*x),
            Val::Str(s) => Value::Str(s.clone()),
            Val::Sym(s) => Value::Sym(Symbol(*s)),
            Val::Bytes(b) => Value::Bytes(b.clone()),
            Val::Time(t) => Value::Time(Timestamp(*t)),
            Val::Vector(v) => Value::Vector(v.clone()),
            Val::List(_) => return None,
        })
    }
}

impl From<Value> for Val {
    /// Takes an owned storage value (strings, bytes and vectors move their
    /// shared buffer, no copy).
    fn from(v: Value) -> Val {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(b),
            Value::Int(i) => Val::Int(i),
            Value::Float(x) => Val::Float(x),
            Value::Str(s) => Val::Str(s),
            Value::Sym(s) => Val::Sym(s.0),
            Value::Bytes(b) => Val::Bytes(b),
            Value::Time(t) => Val::Time(t.0),
            Value::Vector(v) => Val::Vector(v),
        }
    }
}

impl PartialEq for Val {
    /// Agrees with `Ord`, with fast paths for same-typed values (joins and
    /// hash probes compare mostly ints and symbols).
    #[inline]
    fn eq(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Sym(a), Val::Sym(b)) => a == b,
            (Val::Int(a), Val::Int(b)) => a == b,
            (Val::Time(a), Val::Time(b)) => a == b,
            (Val::Str(a), Val::Str(b)) => a == b,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Null, Val::Null) => true,
            _ => self.cmp(other) == Ordering::Equal,
        }
    }
}

impl Eq for Val {}

impl PartialOrd for Val {
    fn partial_cmp(&self, other: &Val) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Val {
    /// By type, then value; ints and floats compare numerically (and an int
    /// equals the float of the same value); floats by `total_cmp`.
    fn cmp(&self, other: &Val) -> Ordering {
        match (self, other) {
            // Same-typed fast paths first: joins and sorts compare mostly
            // symbols, ints and times.
            (Val::Sym(a), Val::Sym(b)) => a.cmp(b),
            (Val::Int(a), Val::Int(b)) => a.cmp(b),
            (Val::Time(a), Val::Time(b)) => a.cmp(b),
            (a, b) if a.rank() == 2 && b.rank() == 2 => {
                let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
                x.total_cmp(&y)
            }
            (Val::Null, Val::Null) => Ordering::Equal,
            (Val::Bool(a), Val::Bool(b)) => a.cmp(b),
            (Val::Str(a), Val::Str(b)) => a.cmp(b),
            (Val::Bytes(a), Val::Bytes(b)) => a.cmp(b),
            (Val::Vector(a), Val::Vector(b)) => a
                .iter()
                .zip(b.iter())
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(a.len().cmp(&b.len())),
            (Val::List(a), Val::List(b)) => a.cmp(b),
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }
}

impl Hash for Val {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.rank().hash(h);
        match self {
            Val::Null => {}
            Val::Bool(b) => b.hash(h),
            // Ints and floats that compare equal must hash equal: an
            // integral float hashes as the integer.
            Val::Int(i) => h.write_i64(*i),
            Val::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e18 => h.write_i64(*x as i64),
            Val::Float(x) => h.write_u64(x.to_bits()),
            Val::Str(s) => s.hash(h),
            Val::Sym(s) => h.write_u32(*s),
            Val::Bytes(b) => b.hash(h),
            Val::Time(t) => h.write_i64(*t),
            Val::Vector(v) => v.iter().for_each(|x| x.to_bits().hash(h)),
            Val::List(l) => l.hash(h),
        }
    }
}

/// One value's hash under [`MixState`], agreeing with `Eq` (an int and
/// the float of the same value hash alike).
#[inline]
pub(crate) fn hash_val(v: &Val) -> u64 {
    use std::hash::BuildHasher;
    MixState::default().hash_one(v)
}

/// What one value adds to a key hash: its bits, salted by type, for the
/// scalars joins mostly compare (no `Hasher` round trip), the full value
/// hash for anything else. Agrees with `Eq`: an integral float adds what
/// the int of the same value adds.
#[inline]
pub(crate) fn hash_part(v: &Val) -> u64 {
    const NUM: u64 = 0x0100_0000_0000_0000;
    match v {
        Val::Int(i) => *i as u64 ^ NUM,
        Val::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e18 => *x as i64 as u64 ^ NUM,
        Val::Sym(s) => u64::from(*s) ^ 0x0200_0000_0000_0000,
        Val::Time(t) => *t as u64 ^ 0x0300_0000_0000_0000,
        other => hash_val(other),
    }
}

/// The hash of a key of several values: each part folded in with a full
/// avalanche, so keys of one scalar hash by a bijection of its bits.
#[inline]
pub(crate) fn hash_key<'v>(values: impl Iterator<Item = &'v Val>) -> u64 {
    values.fold(0x9e37_79b9_7f4a_7c15, |h, v| mix64(h ^ hash_part(v)))
}

/// A tuple of a relation during evaluation.
pub type Tuple = Box<[Val]>;

/// FxHash with a final avalanche step. Plain FxHash keeps the low bits of
/// its input's low bits, and hashbrown picks buckets by the low bits, so keys
/// like dates in microseconds (many trailing zero bits) would all collide.
#[derive(Default, Clone)]
pub(crate) struct MixHasher(rustc_hash::FxHasher);

impl Hasher for MixHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.0.write_u32(n);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0.write_u64(n);
    }
    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.0.write_i64(n);
    }
    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.0.write_u8(n);
    }
    #[inline]
    fn finish(&self) -> u64 {
        mix64(self.0.finish())
    }
}

/// The murmur3 64-bit finalizer: every input bit affects every output bit.
#[inline]
pub(crate) fn mix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// Hash maps keyed by values use the mixing hasher.
pub(crate) type MixState = std::hash::BuildHasherDefault<MixHasher>;
