//! The problems a scenario check has found so far, and how their numbers are written.

use crate::episode::StructureProblem;

/// `v` for a message: in exponent form when very large or small (1e300 has 301 digits).
pub(super) fn num(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The problems found so far, each with its JSON pointer and rule.
#[derive(Debug, Default)]
pub(super) struct Problems(pub Vec<StructureProblem>);

impl Problems {
    pub fn push(&mut self, pointer: impl Into<String>, rule: &'static str, message: String) {
        self.0.push(StructureProblem {
            pointer: pointer.into(),
            rule,
            message,
        });
    }

    /// `v` must lie in `[lo, hi]` (which also refuses NaN).
    pub fn range(&mut self, pointer: impl Into<String>, v: f64, lo: f64, hi: f64) {
        if !(v >= lo && v <= hi) {
            let (lo, hi, v) = (num(lo), num(hi), num(v));
            self.push(pointer, "range", format!("must be in [{lo}, {hi}], is {v}"));
        }
    }

    /// `v` must lie in `(0, hi]`: rule `positive` below, `range` above.
    pub fn positive(&mut self, pointer: impl Into<String>, v: f64, hi: f64) {
        if v.is_nan() || v <= 0.0 {
            self.push(
                pointer,
                "positive",
                format!("must be positive, is {}", num(v)),
            );
        } else if v > hi {
            let (hi, v) = (num(hi), num(v));
            self.push(pointer, "range", format!("must be in (0, {hi}], is {v}"));
        }
    }

    /// A list at `pointer` of `len` items must hold at most `max`.
    pub(super) fn max_items(&mut self, pointer: &str, len: usize, max: usize) {
        if len > max {
            self.push(
                pointer,
                "max_items",
                format!("{len} items, at most {max} are flown"),
            );
        }
    }
}
