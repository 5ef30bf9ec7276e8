//! The incremental watch against a fresh full query, after every update, delete and clock
//! step of evolving scenes; and the changes it reports against its own answers.

use std::collections::BTreeMap;
use std::sync::Arc;

mod common;

use common::Lcg;
use horizon_core::{
    Change, CollisionPair, GeoStateInput, Object, PairFilter, QueryParams, ShapeInput, StateInput,
    Watch, WatchParams, query_objects,
};

fn metric(rng: &mut Lcg, id: usize, t: f64) -> Object {
    let mut s = StateInput::new(
        format!("m{id:04}"),
        t,
        &[rng.range(0.0, 1500.0), rng.range(0.0, 1500.0)],
        &[rng.range(-6.0, 6.0), rng.range(-6.0, 6.0)],
    );
    match id % 4 {
        0 => s = s.with_radius(rng.range(0.0, 8.0)),
        1 => s = s.with_box(&[rng.range(0.0, 10.0), rng.range(0.0, 3.0)]),
        2 => s = s.with_accel(&[rng.range(-0.05, 0.05), rng.range(-0.05, 0.05)]),
        _ => {}
    }
    if id.is_multiple_of(7) {
        s.v = vec![0.0, 0.0]; // moored
        s.status = Some("moored".into());
    }
    s.validate().unwrap().into()
}

fn geo(rng: &mut Lcg, id: usize, t: f64) -> Object {
    // Two harbours: New York, and one on the antimeridian.
    let (lat0, lon0) = if id.is_multiple_of(3) {
        (-16.5, 179.99)
    } else {
        (40.62, -74.04)
    };
    let lon = lon0 + rng.range(-0.08, 0.08);
    let lon = (lon + 540.0).rem_euclid(360.0) - 180.0;
    let mut s = GeoStateInput::new(
        format!("g{id:04}"),
        t,
        lat0 + rng.range(-0.06, 0.06),
        lon,
        rng.range(0.0, 8.0),
        rng.range(0.0, 360.0),
    );
    s.shape = Some(ShapeInput {
        half_extents: None,
        radius: Some(rng.range(5.0, 40.0)),
    });
    s.validate().unwrap().into()
}

/// Replays the changes into a client's view of the answer.
fn apply(view: &mut BTreeMap<(String, String), CollisionPair>, changes: &[Change]) {
    for c in changes {
        let p = c.pair();
        let key = (p.a.clone(), p.b.clone());
        match c {
            Change::Predicted(p) => {
                assert!(
                    view.insert(key, p.clone()).is_none(),
                    "predicted twice: {p:?}"
                );
            }
            Change::Updated(p) => {
                assert!(
                    view.insert(key, p.clone()).is_some(),
                    "updated unknown: {p:?}"
                );
            }
            Change::Cleared(_) | Change::Passed(_) => {
                assert!(view.remove(&key).is_some(), "cleared unknown: {p:?}");
            }
        }
    }
}

struct Run {
    rng: Lcg,
    watch: Watch,
    objects: BTreeMap<String, Arc<Object>>,
    view: BTreeMap<(String, String), CollisionPair>,
    params: WatchParams,
    clock: f64,
    checked: usize,
    pairs_seen: usize,
}

impl Run {
    fn new(seed: u64, params: WatchParams) -> Run {
        Run {
            rng: Lcg(seed),
            watch: Watch::new(params.clone()).unwrap(),
            objects: BTreeMap::new(),
            view: BTreeMap::new(),
            params,
            clock: 0.0,
            checked: 0,
            pairs_seen: 0,
        }
    }

    fn fresh_answer(&self) -> Vec<CollisionPair> {
        let all: Vec<&Object> = self.objects.values().map(|o| &**o).collect();
        let q = QueryParams::new(self.watch.clock().unwrap(), self.params.horizon)
            .with_margin(self.params.margin);
        query_objects(&all, &q, &self.params.filter).unwrap().pairs
    }

    fn check(&mut self, changes: Vec<Change>) {
        apply(&mut self.view, &changes);
        let got = self.watch.pairs();
        let want = self.fresh_answer();
        assert_eq!(got, want, "step {}: watch != fresh query", self.checked);
        let keys: Vec<_> = got.iter().map(|p| (p.a.clone(), p.b.clone())).collect();
        let view: Vec<_> = self.view.keys().cloned().collect();
        let mut keys_sorted = keys.clone();
        keys_sorted.sort();
        assert_eq!(view, keys_sorted, "the changes do not add up to the answer");
        self.checked += 1;
        self.pairs_seen += got.len();
    }

    fn evolve(&mut self, steps: usize, make: fn(&mut Lcg, usize, f64) -> Object, n: usize) {
        let initial: Vec<Arc<Object>> = (0..n)
            .map(|i| Arc::new(make(&mut self.rng, i, 0.0)))
            .collect();
        for o in &initial {
            self.objects.insert(o.id().to_string(), o.clone());
        }
        let ch = self.watch.upsert(&initial);
        self.check(ch);
        for _ in 0..steps {
            self.clock += self.rng.range(0.0, 4.0);
            if self.rng.below(60) == 0 {
                // A long silence: most objects overdue, a full re-index.
                self.clock += 3.0 * self.params.lookahead;
            }
            match self.rng.below(10) {
                0 => {
                    let ch = self.watch.advance(self.clock);
                    self.check(ch);
                }
                1 => {
                    let id = self
                        .objects
                        .keys()
                        .nth(self.rng.below(self.objects.len()))
                        .cloned()
                        .unwrap();
                    self.objects.remove(&id);
                    let (gone, ch) = self.watch.delete(&id);
                    assert!(gone);
                    self.check(ch);
                }
                _ => {
                    let k = 1 + self.rng.below(8);
                    let batch: Vec<Arc<Object>> = (0..k)
                        .map(|_| {
                            let i = self.rng.below(n + 20);
                            Arc::new(make(&mut self.rng, i, self.clock))
                        })
                        .collect();
                    for o in &batch {
                        self.objects.insert(o.id().to_string(), o.clone());
                    }
                    let ch = self.watch.upsert(&batch);
                    self.check(ch);
                }
            }
        }
    }
}

#[test]
fn metric_watch_equals_a_fresh_query_after_every_change() {
    let mut p = WatchParams::new(60.0, 5.0);
    p.lookahead = 25.0;
    let mut run = Run::new(3, p);
    run.evolve(300, metric, 400);
    assert!(
        run.watch.reindexes() >= 2,
        "no full re-index after a silence"
    );
    assert!(
        run.watch.refreshed() > 2000,
        "the rolling re-index barely ran: {}",
        run.watch.refreshed()
    );
    assert!(
        run.pairs_seen > 300,
        "too few pairs to test anything: {}",
        run.pairs_seen
    );
}

#[test]
fn filtered_metric_watch_equals_a_fresh_filtered_query() {
    let mut p = WatchParams::new(45.0, 10.0);
    p.lookahead = 40.0;
    p.filter = PairFilter {
        min_speed: 1.0,
        passive_status: vec!["moored".into()],
        max_age: Some(30.0),
        same_group: true,
    };
    let mut run = Run::new(11, p);
    run.evolve(300, metric, 300);
    assert!(run.pairs_seen > 100, "{}", run.pairs_seen);
}

#[test]
fn geographic_watch_equals_a_fresh_query_across_the_antimeridian() {
    let mut p = WatchParams::new(300.0, 20.0);
    p.lookahead = 60.0;
    let mut run = Run::new(5, p);
    run.evolve(150, geo, 240);
    assert!(run.pairs_seen > 100, "{}", run.pairs_seen);
}

#[test]
fn changes_say_predicted_updated_passed_and_cleared() {
    let st = |id: &str, t: f64, x: f64, vx: f64| -> Arc<Object> {
        Arc::new(
            StateInput::new(id, t, &[x, 0.0], &[vx, 0.0])
                .with_radius(1.0)
                .validate()
                .unwrap()
                .into(),
        )
    };
    let mut w = Watch::new(WatchParams::new(10.0, 0.0)).unwrap();
    // Head-on, 20 apart, closing at 2/s: touching from t = 9 to t = 11.
    let ch = w.upsert(&[st("a", 0.0, 0.0, 1.0), st("b", 0.0, 20.0, -1.0)]);
    assert!(
        matches!(&ch[..], [Change::Predicted(p)] if p.contact.t_contact == 9.0),
        "{ch:?}"
    );
    // b slows down: contact later (t = 1 + 15 / 1.6), an update.
    let ch = w.upsert(&[st("b", 1.0, 18.0, -0.6)]);
    assert!(
        matches!(&ch[..], [Change::Updated(p)] if p.contact.t_contact > 9.0),
        "{ch:?}"
    );
    // The clock carries the contact past: passed.
    let ch = w.advance(40.0);
    assert!(
        matches!(&ch[..], [Change::Passed(p)] if p.a == "a"),
        "{ch:?}"
    );
    // A new conflict, then one side deleted: cleared.
    w.upsert(&[st("c", 40.0, 100.0, 0.0), st("d", 40.0, 95.0, 1.0)]);
    let (gone, ch) = w.delete("d");
    assert!(gone);
    assert!(
        matches!(&ch[..], [Change::Cleared(p)] if p.b == "d"),
        "{ch:?}"
    );
    assert!(w.pairs().is_empty());
}
