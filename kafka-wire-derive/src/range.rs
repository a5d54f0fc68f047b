//! Version ranges in the derive: parsed in exactly one place, with Kafka's syntax.

use darling::FromMeta;

/// An inclusive version range; empty when `min > max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub min: i16,
    pub max: i16,
}

impl Range {
    pub const NONE: Range = Range { min: 0, max: -1 };

    pub fn new(min: i16, max: i16) -> Self {
        Range { min, max }
    }

    pub fn is_empty(self) -> bool {
        self.min > self.max
    }

    pub fn is_open_ended(self) -> bool {
        !self.is_empty() && self.max == i16::MAX
    }

    pub fn intersect(self, o: Range) -> Range {
        let r = Range::new(self.min.max(o.min), self.max.min(o.max));
        if r.is_empty() {
            Range::NONE
        } else {
            r
        }
    }

    pub fn is_subset_of(self, o: Range) -> bool {
        self.is_empty() || (self.min >= o.min && self.max <= o.max)
    }

    /// Kafka's syntax (G/Versions.java), made strict: `""`, negative numbers and `A-B` with
    /// `A > B` are errors rather than silently empty.
    pub fn parse(text: &str) -> Result<Range, String> {
        const EXPECTED: &str =
            "expected \"none\", \"N+\", \"A-B\" or \"N\" with versions in 0..=32767";
        let s = text.trim();
        let num = |t: &str| -> Result<i16, String> {
            let t = t.trim();
            if t.starts_with('-') {
                return Err(format!(
                    "invalid version range {text:?}: versions cannot be negative; {EXPECTED}"
                ));
            }
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("invalid version range {text:?}: {EXPECTED}"));
            }
            t.parse::<i16>()
                .map_err(|_| format!("invalid version range {text:?}: {t} is above 32767"))
        };
        if s.is_empty() {
            return Err(format!("empty version range: {EXPECTED}"));
        }
        if s == "none" {
            return Ok(Range::NONE);
        }
        if s.starts_with('-') {
            return Err(format!(
                "invalid version range {text:?}: versions cannot be negative; {EXPECTED}"
            ));
        }
        if let Some(n) = s.strip_suffix('+') {
            return Ok(Range::new(num(n)?, i16::MAX));
        }
        if let Some((a, b)) = s.split_once('-') {
            let (a, b) = (num(a)?, num(b)?);
            if a > b {
                return Err(format!(
                    "invalid version range {text:?}: the lower bound {a} is above the upper bound {b}"
                ));
            }
            return Ok(Range::new(a, b));
        }
        let n = num(s)?;
        Ok(Range::new(n, n))
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.max == i16::MAX {
            write!(f, "{}+", self.min)
        } else if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

impl FromMeta for Range {
    fn from_string(value: &str) -> darling::Result<Self> {
        Range::parse(value).map_err(darling::Error::custom)
    }

    // darling's default says "Unexpected type `int`": say what a range looks like instead.
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Self::from_string(&s.value()).map_err(|e| e.with_span(s)),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Err(darling::Error::custom(format!(
                "a version range is a string: write \"{0}\" for version {0} only, or \"{0}+\" for {0} and later",
                i.base10_digits()
            ))
            .with_span(i)),
            // Invisible groups come from attributes written by a `macro_rules!`.
            syn::Expr::Group(g) => Self::from_expr(&g.expr),
            _ => Err(darling::Error::custom(
                "expected a version range string: \"none\", \"N+\", \"A-B\" or \"N\"",
            )
            .with_span(expr)),
        }
    }

    fn from_word() -> darling::Result<Self> {
        Err(darling::Error::custom(
            "expected a version range: write `= \"N+\"`, `= \"A-B\"`, `= \"N\"` or `= \"none\"`",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        assert_eq!(Range::parse("3+").unwrap(), Range::new(3, i16::MAX));
        assert_eq!(Range::parse("0-5").unwrap(), Range::new(0, 5));
        assert_eq!(Range::parse("4").unwrap(), Range::new(4, 4));
        assert!(Range::parse("none").unwrap().is_empty());
        for bad in ["", "4+x", "5-2", "-1", "x", "1-2-3", "99999"] {
            assert!(Range::parse(bad).is_err(), "{bad}");
        }
    }
}
