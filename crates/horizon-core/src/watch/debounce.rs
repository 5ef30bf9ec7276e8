//! Hysteresis for alarms: a conflict that clears and comes back within a hold time is one
//! alarm, not a `cleared` and a new `predicted` on every report (the harbor "alarm every
//! minute" complaint). `passed` is never held: the conflict is over.

use std::collections::HashMap;

use super::Change;
use crate::query::CollisionPair;

/// Turns a watch's changes into the changes an operator sees.
#[derive(Debug, Default)]
pub struct Debouncer {
    hold: f64,
    /// What the operator currently sees.
    shown: HashMap<(String, String), CollisionPair>,
    /// Cleared pairs still shown, with the clock at which they cleared.
    held: HashMap<(String, String), f64>,
}

fn key(p: &CollisionPair) -> (String, String) {
    (p.a.clone(), p.b.clone())
}

impl Debouncer {
    /// Holds `cleared` for `hold` seconds of the clock.
    pub fn new(hold: f64) -> Self {
        Debouncer {
            hold: hold.max(0.0),
            ..Default::default()
        }
    }

    /// What the operator sees now.
    pub fn shown(&self) -> Vec<CollisionPair> {
        let mut v: Vec<CollisionPair> = self.shown.values().cloned().collect();
        crate::query::sort_pairs(&mut v);
        v
    }

    /// Filters one batch of changes at `clock`.
    pub fn filter(&mut self, changes: Vec<Change>, clock: f64) -> Vec<Change> {
        let mut out = Vec::new();
        for c in changes {
            let k = key(c.pair());
            match c {
                Change::Predicted(p) => {
                    if self.held.remove(&k).is_some() {
                        // Back within the hold: the same alarm, with its new numbers.
                        self.shown.insert(k, p.clone());
                        out.push(Change::Updated(p));
                    } else {
                        self.shown.insert(k, p.clone());
                        out.push(Change::Predicted(p));
                    }
                }
                Change::Updated(p) => {
                    self.held.remove(&k);
                    self.shown.insert(k, p.clone());
                    out.push(Change::Updated(p));
                }
                Change::Cleared(_) => {
                    if self.hold > 0.0 {
                        self.held.entry(k).or_insert(clock);
                    } else if let Some(p) = self.shown.remove(&k) {
                        out.push(Change::Cleared(p));
                    }
                }
                Change::Passed(p) => {
                    self.held.remove(&k);
                    if self.shown.remove(&k).is_some() {
                        out.push(Change::Passed(p));
                    }
                }
            }
        }
        let hold = self.hold;
        let expired: Vec<(String, String)> = self
            .held
            .iter()
            .filter(|(_, t)| clock - **t >= hold)
            .map(|(k, _)| k.clone())
            .collect();
        for k in expired {
            self.held.remove(&k);
            if let Some(p) = self.shown.remove(&k) {
                out.push(Change::Cleared(p));
            }
        }
        out
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use crate::contact::PairContact;

    fn pair(t: f64) -> CollisionPair {
        CollisionPair {
            a: "a".into(),
            b: "b".into(),
            contact: PairContact {
                t_contact: t,
                t_separation: t + 5.0,
                min_distance: 0.0,
                t_min_distance: t,
            },
            age_a: 0.0,
            age_b: 0.0,
            geo: None,
        }
    }

    #[test]
    fn a_flapping_conflict_is_one_alarm() {
        let mut d = Debouncer::new(30.0);
        let out = d.filter(vec![Change::Predicted(pair(100.0))], 0.0);
        assert!(matches!(&out[..], [Change::Predicted(_)]));
        // Cleared, back 10 s later: no cleared, one update.
        assert!(d.filter(vec![Change::Cleared(pair(100.0))], 5.0).is_empty());
        let out = d.filter(vec![Change::Predicted(pair(101.0))], 15.0);
        assert!(matches!(&out[..], [Change::Updated(p)] if p.contact.t_contact == 101.0));
        // Cleared for good: shown until the hold runs out.
        assert!(
            d.filter(vec![Change::Cleared(pair(101.0))], 20.0)
                .is_empty()
        );
        assert_eq!(d.shown().len(), 1);
        assert!(d.filter(vec![], 40.0).is_empty());
        let out = d.filter(vec![], 50.0);
        assert!(matches!(&out[..], [Change::Cleared(p)] if p.contact.t_contact == 101.0));
        assert!(d.shown().is_empty());
        // Passed is never held.
        d.filter(vec![Change::Predicted(pair(60.0))], 55.0);
        let out = d.filter(vec![Change::Passed(pair(60.0))], 70.0);
        assert!(matches!(&out[..], [Change::Passed(_)]));
    }
}
