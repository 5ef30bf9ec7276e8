//! Alarm rules on top of the contact rule: which objects and pairs a monitor cares about.
//!
//! A pair that the filter drops is still computed exactly; the filter only decides whether
//! it is reported, so every algorithm returns the same filtered answer.

use crate::error::QueryError;
use crate::state::ObjectState;

/// Which pairs a query reports (the default reports every pair).
#[derive(Debug, Clone, PartialEq)]
pub struct PairFilter {
    /// An object slower than this (speed at the query time) is *passive*; a pair of two
    /// passive objects is not reported. 0 turns the rule off.
    pub min_speed: f64,
    /// Objects whose `status` is one of these (compared case-insensitively) are passive too,
    /// whatever their speed: moored or anchored ships never alarm against each other, but a
    /// ship under way heading for one still does.
    pub passive_status: Vec<String>,
    /// `false`: pairs whose objects share a (non-empty) `group` are not reported.
    pub same_group: bool,
    /// States older than this at the query time (`T − t > max_age`) are left out.
    pub max_age: Option<f64>,
}

impl Default for PairFilter {
    fn default() -> Self {
        PairFilter {
            min_speed: 0.0,
            passive_status: Vec::new(),
            same_group: true,
            max_age: None,
        }
    }
}

impl PairFilter {
    /// Checks that every number is usable.
    pub fn validate(&self) -> Result<(), QueryError> {
        if !(self.min_speed.is_finite() && self.min_speed >= 0.0) {
            return Err(QueryError::BadFilter(format!(
                "`min_speed` must be a finite number >= 0, got {}",
                self.min_speed
            )));
        }
        if let Some(m) = self.max_age
            && !(m.is_finite() && m >= 0.0)
        {
            return Err(QueryError::BadFilter(format!(
                "`max_age` must be a finite number >= 0, got {m}"
            )));
        }
        Ok(())
    }

    /// True when the filter can drop pairs (so the query must look at each one).
    pub(crate) fn drops_pairs(&self) -> bool {
        self.min_speed > 0.0 || !self.passive_status.is_empty() || !self.same_group
    }

    /// Whether a state is recent enough at `at`.
    pub fn is_fresh(&self, s: &ObjectState, at: f64) -> bool {
        self.max_age.is_none_or(|m| at - s.t() <= m)
    }

    fn is_passive(&self, s: &ObjectState, at: f64) -> bool {
        let status = s.meta().status.as_deref();
        s.speed_at(at) < self.min_speed
            || status.is_some_and(|st| {
                self.passive_status
                    .iter()
                    .any(|p| p.eq_ignore_ascii_case(st))
            })
    }

    /// Whether the pair `(a, b)` is reported, at query time `at`.
    pub fn keeps(&self, a: &ObjectState, b: &ObjectState, at: f64) -> bool {
        if self.is_passive(a, at) && self.is_passive(b, at) {
            return false;
        }
        if !self.same_group
            && let (Some(ga), Some(gb)) = (&a.meta().group, &b.meta().group)
            && ga == gb
        {
            return false;
        }
        true
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::StateInput;

    fn st(id: &str, speed: f64, status: Option<&str>, group: Option<&str>) -> ObjectState {
        let mut s = StateInput::new(id, 0.0, &[0.0, 0.0], &[speed, 0.0]);
        s.status = status.map(String::from);
        s.group = group.map(String::from);
        s.validate().unwrap()
    }

    #[test]
    fn passive_pairs_and_groups() {
        let f = PairFilter {
            min_speed: 0.5,
            passive_status: vec!["moored".into()],
            same_group: false,
            max_age: Some(10.0),
        };
        let slow = st("a", 0.1, None, None);
        let moored_fast = st("b", 3.0, Some("Moored"), None);
        let moving = st("c", 3.0, None, Some("g"));
        let moving2 = st("d", 3.0, None, Some("g"));
        assert!(!f.keeps(&slow, &moored_fast, 0.0), "both passive");
        assert!(f.keeps(&slow, &moving, 0.0), "one moving");
        assert!(f.keeps(&moored_fast, &moving, 0.0));
        assert!(!f.keeps(&moving, &moving2, 0.0), "same group");
        assert!(PairFilter::default().keeps(&moving, &moving2, 0.0));
        assert!(f.is_fresh(&slow, 10.0) && !f.is_fresh(&slow, 10.5));
        assert!(f.validate().is_ok());
        let bad = PairFilter {
            min_speed: -1.0,
            ..Default::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("min_speed")
        );
    }
}
