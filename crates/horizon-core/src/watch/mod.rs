//! Standing watches: one query's predicted conflict set, kept up to date as states arrive
//! instead of re-running the query (the GPCD paper leaves this as future work).
//!
//! ## How
//! The watch looks ahead: it tracks every pair that can touch within the next horizon plus
//! a lookahead `L`, with the pair's next contact interval. Pairs wait in a queue by contact
//! start until the horizon reaches them, then in a queue by contact end until it is over:
//! - an update re-solves only the updated objects against their neighbours in a dynamic
//!   hash grid of swept boxes (one for metric space, one for ECEF);
//! - a delete drops the object's pairs;
//! - a clock step touches only the pairs whose time has come (and the few whose filter
//!   verdict changes by itself: stale reports, accelerating objects);
//! - every object is re-indexed from scratch within `L / 2` of its last index, a share of
//!   the oldest per step: a rolling full re-check (all at once after a long silence).
//!
//! The answer ([`Watch::pairs`]) is the same as a fresh [`crate::query_objects`] at the
//! watch's clock, pair for pair and number for number: due pairs are solved with the same
//! solver, in the same order of the two objects, and geographic pairs in the same frame
//! (the one of their first object's tile, which depends on nothing else).

mod debounce;
mod grid;

pub use debounce::Debouncer;

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use grid::DynGrid;

use crate::contact::{ContactOptions, PairContact, pair_contact};
use crate::error::QueryError;
use crate::filter::PairFilter;
use crate::geo::frame::{Frame, GUEST_SLACK, MIN_TILE, reach, tile_of};
use crate::geo::{GeoState, PairGeo, PairPositions};
use crate::motion::{Aabb, Body};
use crate::object::Object;
use crate::query::{CollisionPair, sort_pairs};
use crate::state::ObjectState;

/// What a watch watches.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchParams {
    /// Horizon `h`, seconds.
    pub horizon: f64,
    /// Safety margin.
    pub margin: f64,
    /// Alarm rules.
    pub filter: PairFilter,
    /// How far past the horizon pairs are tracked; the clock may advance this far before a
    /// full re-index. Longer: fewer re-indexes, more pairs tracked.
    pub lookahead: f64,
    /// An `updated` change needs the predicted contact to move by more than this (seconds)...
    pub update_seconds: f64,
    /// ...or the closest approach by more than this.
    pub update_distance: f64,
}

impl WatchParams {
    /// Horizon and margin, no filter, a lookahead of one horizon (at least 10 s).
    pub fn new(horizon: f64, margin: f64) -> Self {
        WatchParams {
            horizon,
            margin,
            filter: PairFilter::default(),
            lookahead: horizon.max(10.0),
            update_seconds: 1.0,
            update_distance: 1.0,
        }
    }

    /// Checks that every number is usable.
    pub fn validate(&self) -> Result<(), QueryError> {
        ContactOptions::new(0.0, self.horizon)
            .with_margin(self.margin)
            .validate()?;
        self.filter.validate()?;
        if !(self.lookahead.is_finite() && self.lookahead > 0.0) {
            return Err(QueryError::BadFilter(format!(
                "`lookahead` must be a finite number > 0, got {}",
                self.lookahead
            )));
        }
        Ok(())
    }
}

/// How the answer changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A pair entered the answer.
    Predicted(CollisionPair),
    /// A pair's predicted contact or closest approach moved beyond the tolerances.
    Updated(CollisionPair),
    /// A pair left the answer before its contact was over: a state changed, an object was
    /// deleted or went stale, or a filter now drops it.
    Cleared(CollisionPair),
    /// A pair left the answer because its contact is over.
    Passed(CollisionPair),
}

impl Change {
    /// The pair, as last known.
    pub fn pair(&self) -> &CollisionPair {
        match self {
            Change::Predicted(p) | Change::Updated(p) | Change::Cleared(p) | Change::Passed(p) => p,
        }
    }
    /// `predicted`, `updated`, `cleared` or `passed`.
    pub fn kind(&self) -> &'static str {
        match self {
            Change::Predicted(_) => "predicted",
            Change::Updated(_) => "updated",
            Change::Cleared(_) => "cleared",
            Change::Passed(_) => "passed",
        }
    }
}

/// Slots of the two objects, the one with the smaller id first.
type Key = (u32, u32);

struct Slot {
    object: Arc<Object>,
    /// The box it sweeps over `[indexed, end]`, as filed in the grid.
    aabb: Aabb,
    indexed: f64,
    end: f64,
    partners: HashSet<u32>,
}

/// A queue entry: due when the horizon reaches `t`.
#[derive(Clone, Copy, PartialEq)]
struct Queued(f64, Key);
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// One standing query, maintained incrementally.
pub struct Watch {
    params: WatchParams,
    ids: HashMap<Arc<str>, u32>,
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    clock: f64,
    /// Objects by when they were last indexed: each is re-indexed (its box and pairs
    /// recomputed) before the clock passes `indexed + lookahead`, a few every step.
    by_age: BTreeSet<Queued>,
    /// The clock at the last step.
    stepped: f64,
    grids: [DynGrid; 2],
    /// Tracked pairs: their next contact interval `[start, end]`, absolute times.
    tracks: HashMap<Key, (f64, f64)>,
    /// Tracked pairs the horizon has not reached yet, by contact start.
    entering: BTreeSet<Queued>,
    /// Pairs whose contact meets `[clock, clock + h]`, by contact end.
    leaving: BTreeSet<Queued>,
    in_window: HashSet<Key>,
    /// Of those, the ones the filter keeps: the answer.
    answer: HashSet<Key>,
    /// In-window pairs whose filter verdict changes with the clock by itself: a report
    /// going stale (by the time it does), an accelerating object crossing `min_speed`.
    stale: BTreeSet<Queued>,
    speeding: HashSet<Key>,
    /// What the last changes reported, per pair.
    reported: HashMap<Key, CollisionPair>,
    /// Pairs to compare with `reported` at the next [`Watch::changes`].
    touched: HashSet<Key>,
    /// Pairs the clock carried out of the answer (their contact is over).
    retired: HashSet<Key>,
    reindexes: u64,
    refreshed: u64,
}

fn space(o: &Object) -> usize {
    match o {
        Object::Metric(_) => 0,
        Object::Geo(_) => 1,
    }
}

fn accelerates(o: &Object) -> bool {
    match o {
        Object::Metric(s) => s.acceleration() != [0.0; 3],
        Object::Geo(g) => g.ecef_motion().a != [0.0; 3] || g.ecef_motion().z[2] != 0.0,
    }
}

impl Watch {
    /// An empty watch.
    pub fn new(params: WatchParams) -> Result<Watch, QueryError> {
        params.validate()?;
        Ok(Watch {
            params,
            ids: HashMap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            clock: f64::NEG_INFINITY,
            by_age: BTreeSet::new(),
            stepped: f64::NEG_INFINITY,
            grids: Default::default(),
            tracks: HashMap::new(),
            entering: BTreeSet::new(),
            leaving: BTreeSet::new(),
            in_window: HashSet::new(),
            answer: HashSet::new(),
            stale: BTreeSet::new(),
            speeding: HashSet::new(),
            reported: HashMap::new(),
            touched: HashSet::new(),
            retired: HashSet::new(),
            reindexes: 0,
            refreshed: 0,
        })
    }

    /// What it watches.
    pub fn params(&self) -> &WatchParams {
        &self.params
    }

    /// The watch's clock: the latest time it has seen.
    pub fn clock(&self) -> Option<f64> {
        self.clock.is_finite().then_some(self.clock)
    }

    /// Objects watched.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Full re-indexes so far.
    pub fn reindexes(&self) -> u64 {
        self.reindexes
    }

    /// Objects re-indexed one by one as they aged (the rolling re-check).
    pub fn refreshed(&self) -> u64 {
        self.refreshed
    }

    /// Pairs tracked ahead of the horizon (for statistics).
    pub fn tracked(&self) -> usize {
        self.tracks.len()
    }

    /// The current answer, in answer order, with every number as of the clock.
    pub fn pairs(&self) -> Vec<CollisionPair> {
        let mut v: Vec<CollisionPair> = self
            .answer
            .iter()
            .filter_map(|&k| self.numbers(k))
            .collect();
        sort_pairs(&mut v);
        v
    }

    /// New or replaced states; the clock moves to the latest `t` if that is later.
    pub fn upsert(&mut self, objects: &[Arc<Object>]) -> Vec<Change> {
        let latest = objects.iter().map(|o| o.t()).fold(self.clock, f64::max);
        let stepped = latest > self.clock;
        self.clock = latest;
        let mut updated = Vec::with_capacity(objects.len());
        for o in objects {
            let i = match self.ids.get(o.id()) {
                Some(&i) => {
                    self.forget(i);
                    i
                }
                None => {
                    let i = self.free.pop().unwrap_or_else(|| {
                        self.slots.push(None);
                        (self.slots.len() - 1) as u32
                    });
                    self.ids.insert(Arc::from(o.id()), i);
                    i
                }
            };
            self.slots[i as usize] = Some(Slot {
                object: o.clone(),
                aabb: Aabb {
                    lo: [0.0; 3],
                    hi: [0.0; 3],
                },
                indexed: self.clock,
                end: self.clock,
                partners: HashSet::new(),
            });
            updated.push(i);
        }
        if self.reindexes == 0 {
            self.reindex();
            return self.changes();
        }
        // The clock first, so the new pairs are filed against it.
        if stepped {
            self.step();
        }
        self.index(&updated);
        self.changes()
    }

    /// Files objects (new, updated or due for re-indexing, already forgotten) at the clock:
    /// their swept boxes in the grid and their pairs with every neighbour.
    fn index(&mut self, objects: &[u32]) {
        let end = self.clock + self.params.horizon + self.params.lookahead;
        let batch: HashSet<u32> = objects.iter().copied().collect();
        for &i in objects {
            {
                let s = self.slots[i as usize].as_mut().expect("live");
                s.indexed = self.clock;
                s.end = end;
            }
            let aabb = self.swept(i, self.clock);
            let s = self.slots[i as usize].as_mut().expect("live");
            s.aabb = aabb;
            let sp = space(&s.object);
            self.grids[sp].insert(i, &aabb);
            self.by_age.insert(Queued(self.clock, (i, i)));
        }
        let mut near = Vec::new();
        for &i in objects {
            near.clear();
            let (sp, aabb) = {
                let s = self.slots[i as usize].as_ref().expect("live");
                (space(&s.object), s.aabb)
            };
            self.grids[sp].query(&aabb, &mut near);
            near.sort_unstable();
            near.dedup();
            for &j in &near {
                // A pair of two objects of the batch is tracked once, from its smaller slot.
                if j == i || (batch.contains(&j) && j < i) {
                    continue;
                }
                let bj = self.slots[j as usize].as_ref().expect("live").aabb;
                if aabb.overlaps(&bj) {
                    self.track(i, j);
                }
            }
        }
    }

    /// Removes an object; `false` if it was not watched.
    pub fn delete(&mut self, id: &str) -> (bool, Vec<Change>) {
        let Some(i) = self.ids.remove(id) else {
            return (false, Vec::new());
        };
        self.forget(i);
        self.slots[i as usize] = None;
        self.free.push(i);
        (true, self.changes())
    }

    /// Moves the clock forward (it never goes back).
    pub fn advance(&mut self, clock: f64) -> Vec<Change> {
        if clock > self.clock {
            self.clock = clock;
            self.step();
        }
        self.changes()
    }

    /// Re-indexes everything from scratch now (the periodic full re-check) and returns the
    /// changes it finds, which are none unless the incremental state had drifted.
    pub fn recheck(&mut self) -> Vec<Change> {
        if self.clock.is_finite() {
            self.reindex();
        }
        self.changes()
    }

    // ---- internals ----

    fn object(&self, i: u32) -> &Object {
        &self.slots[i as usize].as_ref().expect("live slot").object
    }

    fn key(&self, i: u32, j: u32) -> Key {
        if self.object(i).id() < self.object(j).id() {
            (i, j)
        } else {
            (j, i)
        }
    }

    /// Drops everything known about slot `i`'s pairs and its place in the grid.
    fn forget(&mut self, i: u32) {
        let Some(s) = self.slots[i as usize].as_mut() else {
            return;
        };
        let partners: Vec<u32> = s.partners.drain().collect();
        let (sp, aabb, indexed) = (space(&s.object), s.aabb, s.indexed);
        self.grids[sp].remove(i, &aabb);
        self.by_age.remove(&Queued(indexed, (i, i)));
        for j in partners {
            if let Some(o) = self.slots[j as usize].as_mut() {
                o.partners.remove(&i);
            }
            let key = self.key(i, j);
            self.untrack(key);
        }
    }

    /// Takes a pair out of every structure (the pair is compared at the next changes).
    fn unfile(&mut self, key: Key) {
        if let Some(&(start, end)) = self.tracks.get(&key) {
            self.entering.remove(&Queued(start, key));
            self.leaving.remove(&Queued(end, key));
            if let Some(d) = self.stale_deadline(key) {
                self.stale.remove(&Queued(d, key));
            }
        }
        self.in_window.remove(&key);
        self.answer.remove(&key);
        self.speeding.remove(&key);
        self.touched.insert(key);
    }

    fn untrack(&mut self, key: Key) {
        self.unfile(key);
        self.tracks.remove(&key);
    }

    /// The box slot `i` sweeps from `from` to the end of the tracked window.
    fn swept(&self, i: u32, from: f64) -> Aabb {
        let end = self.slots[i as usize].as_ref().expect("live").end;
        let span = (end - from).max(0.0);
        let m = self.params.margin;
        match self.object(i) {
            Object::Metric(s) => Body::new(s, from, span).swept_box(span, 0.5 * m),
            Object::Geo(g) => {
                // ECEF: the surface track, grown by the footprint's reach and the margin,
                // with the slack the frames' projection needs.
                let mo = g.ecef_motion();
                let dt = from - g.t();
                let (p, r0) = reach(g, from, 0.0, 0.0);
                let v = std::array::from_fn(|j| mo.v[j] + mo.a[j] * dt);
                let body = Body {
                    p,
                    v,
                    a: mo.a,
                    w: [0.0; 3],
                    r: 0.0,
                    scale: crate::geo::wgs84::norm(p),
                };
                body.swept_box(span, GUEST_SLACK * (r0 + 0.5 * m) + 1.0)
            }
        }
    }

    /// Solves a pair exactly over `[at, at + horizon]`, in its frame; with the states the
    /// filter looks at.
    fn solve(&self, key: Key, at: f64, horizon: f64) -> Option<(PairContact, Pair<'_>)> {
        let opts = ContactOptions::new(at, horizon).with_margin(self.params.margin);
        let pair = match (self.object(key.0), self.object(key.1)) {
            (Object::Metric(a), Object::Metric(b)) => Pair::Metric(a, b),
            (Object::Geo(a), Object::Geo(b)) => {
                let frame = self.frame_for(a, at);
                Pair::Geo(a, b, Box::new((frame.project(a), frame.project(b))))
            }
            _ => return None,
        };
        let (a, b) = pair.states();
        let c = pair_contact(a, b, &opts).ok().flatten()?;
        Some((c, pair))
    }

    /// The frame of the tile holding `a` at `at`, as the all-pairs query chooses it.
    fn frame_for(&self, a: &GeoState, at: f64) -> Frame {
        let (p, _) = reach(a, at, 0.0, 0.0);
        Frame::of_tile(tile_of(p, MIN_TILE), MIN_TILE)
    }

    /// Starts tracking the pair of slots `i`, `j` if it can touch in the tracked window.
    fn track(&mut self, i: u32, j: u32) {
        if space(self.object(i)) != space(self.object(j)) {
            return;
        }
        let key = self.key(i, j);
        let span = (self.window_end(key) - self.clock).max(0.0);
        let Some((c, _)) = self.solve(key, self.clock, span) else {
            return;
        };
        self.slots[i as usize]
            .as_mut()
            .expect("live")
            .partners
            .insert(j);
        self.slots[j as usize]
            .as_mut()
            .expect("live")
            .partners
            .insert(i);
        self.file(key, (c.t_contact, c.t_separation));
    }

    /// Files a tracked pair by its contact interval: entering, or in the window (and then in
    /// the answer if the filter keeps it).
    fn file(&mut self, key: Key, interval: (f64, f64)) {
        self.unfile(key);
        self.tracks.insert(key, interval);
        let (start, end) = interval;
        if start > self.clock + self.params.horizon {
            self.entering.insert(Queued(start, key));
            return;
        }
        self.in_window.insert(key);
        self.leaving.insert(Queued(end, key));
        if let Some(d) = self.stale_deadline(key) {
            self.stale.insert(Queued(d, key));
        }
        if self.params.filter.min_speed > 0.0
            && (accelerates(self.object(key.0)) || accelerates(self.object(key.1)))
        {
            self.speeding.insert(key);
        }
        if self.keeps(key) {
            self.answer.insert(key);
        }
    }

    /// The end of the window both objects of a pair are indexed for.
    fn window_end(&self, (i, j): Key) -> f64 {
        let end = |i: u32| self.slots[i as usize].as_ref().expect("live").end;
        end(i).min(end(j))
    }

    /// When the older report of the pair goes stale (`max_age`).
    fn stale_deadline(&self, key: Key) -> Option<f64> {
        let m = self.params.filter.max_age?;
        Some(self.object(key.0).t().min(self.object(key.1).t()) + m)
    }

    /// The filter's verdict on an in-window pair at the clock.
    fn keeps(&self, key: Key) -> bool {
        let f = &self.params.filter;
        let fresh = |i: u32| {
            f.max_age
                .is_none_or(|m| self.clock - self.object(i).t() <= m)
        };
        if !(fresh(key.0) && fresh(key.1)) {
            return false;
        }
        if !f.drops_pairs() {
            return true;
        }
        match (self.object(key.0), self.object(key.1)) {
            (Object::Metric(a), Object::Metric(b)) => f.keeps(a, b, self.clock),
            (Object::Geo(a), Object::Geo(b)) => {
                let frame = self.frame_for(a, self.clock);
                f.keeps(&frame.project(a), &frame.project(b), self.clock)
            }
            _ => false,
        }
    }

    /// Brings the pairs to the clock: what the horizon reached enters the window, what is
    /// over leaves it, and verdicts that change with time are taken again.
    fn step(&mut self) {
        let (now, h) = (self.clock, self.params.horizon);
        // Re-index what is due: everything indexed more than a lookahead ago, and a share of
        // the oldest so that all objects cycle every half lookahead, spread over the steps.
        let lookahead = self.params.lookahead;
        let overdue = self
            .by_age
            .iter()
            .take_while(|q| q.0 + lookahead < now)
            .count();
        if overdue > self.ids.len() / 2 {
            self.reindex();
            return;
        }
        let elapsed = (now - self.stepped).clamp(0.0, lookahead);
        self.stepped = now;
        let share = (self.ids.len() as f64 * elapsed / (0.5 * lookahead)).ceil() as usize;
        let budget = overdue.max(share);
        let due: Vec<u32> = self
            .by_age
            .iter()
            .take(budget)
            .filter(|q| q.0 < now)
            .map(|q| q.1.0)
            .collect();
        if !due.is_empty() {
            self.refreshed += due.len() as u64;
            for &i in &due {
                self.forget(i);
            }
            self.index(&due);
        }
        while let Some(&q) = self.entering.first() {
            if q.0 > now + h {
                break;
            }
            self.entering.pop_first();
            if let Some(&interval) = self.tracks.get(&q.1) {
                self.file(q.1, interval);
            }
        }
        while let Some(&q) = self.leaving.first() {
            if q.0 >= now {
                break;
            }
            let key = q.1;
            let was = self.answer.contains(&key);
            // The contact is over: is there another in the window?
            let span = (self.window_end(key) - now).max(0.0);
            match self.solve(key, now, span) {
                Some((c, _)) => self.file(key, (c.t_contact, c.t_separation)),
                None => {
                    self.untrack(key);
                    self.unlink(key);
                }
            }
            if was && !self.answer.contains(&key) {
                self.retired.insert(key);
            }
        }
        while let Some(&q) = self.stale.first() {
            if q.0 >= now {
                break;
            }
            self.stale.pop_first();
            self.answer.remove(&q.1);
            self.touched.insert(q.1);
        }
        let speeding: Vec<Key> = self.speeding.iter().copied().collect();
        for key in speeding {
            let keep = self.keeps(key);
            if keep != self.answer.contains(&key) {
                if keep {
                    self.answer.insert(key);
                } else {
                    self.answer.remove(&key);
                }
                self.touched.insert(key);
            }
        }
    }

    fn unlink(&mut self, (i, j): Key) {
        if let Some(s) = self.slots[i as usize].as_mut() {
            s.partners.remove(&j);
        }
        if let Some(s) = self.slots[j as usize].as_mut() {
            s.partners.remove(&i);
        }
    }

    /// An answer pair's numbers at the clock.
    fn numbers(&self, key: Key) -> Option<CollisionPair> {
        let (c, pair) = self.solve(key, self.clock, self.params.horizon)?;
        let (oa, ob) = (self.object(key.0), self.object(key.1));
        let geo = match pair {
            Pair::Geo(a, b, _) => {
                let at_time = |s: f64| PairPositions {
                    a: a.position_at(s),
                    b: b.position_at(s),
                };
                Some(PairGeo {
                    contact: at_time(c.t_contact),
                    closest: at_time(c.t_min_distance),
                })
            }
            Pair::Metric(..) => None,
        };
        Some(CollisionPair {
            a: oa.id().to_string(),
            b: ob.id().to_string(),
            contact: c,
            age_a: self.clock - oa.t(),
            age_b: self.clock - ob.t(),
            geo,
        })
    }

    /// Rebuilds the grids and the tracked pairs from scratch at the clock.
    fn reindex(&mut self) {
        self.reindexes += 1;
        self.stepped = self.clock;
        let before: Vec<Key> = self.answer.iter().copied().collect();
        self.touched.extend(self.reported.keys().copied());
        self.tracks.clear();
        self.entering.clear();
        self.leaving.clear();
        self.in_window.clear();
        self.answer.clear();
        self.stale.clear();
        self.speeding.clear();
        self.by_age.clear();
        let live: Vec<u32> = self.ids.values().copied().collect();
        let end = self.clock + self.params.horizon + self.params.lookahead;
        for &i in &live {
            {
                let s = self.slots[i as usize].as_mut().expect("live");
                s.indexed = self.clock;
                s.end = end;
                s.partners.clear();
            }
            let aabb = self.swept(i, self.clock);
            self.slots[i as usize].as_mut().expect("live").aabb = aabb;
            self.by_age.insert(Queued(self.clock, (i, i)));
        }
        for sp in 0..2 {
            let boxes: Vec<Aabb> = live
                .iter()
                .filter(|&&i| space(self.object(i)) == sp)
                .map(|&i| self.slots[i as usize].as_ref().expect("live").aabb)
                .collect();
            self.grids[sp] = DynGrid::sized_for(boxes.iter(), 2.0);
        }
        for &i in &live {
            let s = self.slots[i as usize].as_ref().expect("live");
            let (sp, aabb) = (space(&s.object), s.aabb);
            self.grids[sp].insert(i, &aabb);
        }
        let mut near = Vec::new();
        for &i in &live {
            near.clear();
            let s = self.slots[i as usize].as_ref().expect("live");
            let (sp, aabb) = (space(&s.object), s.aabb);
            self.grids[sp].query(&aabb, &mut near);
            near.sort_unstable();
            near.dedup();
            for &j in &near {
                if j > i {
                    let bj = self.slots[j as usize].as_ref().expect("live").aabb;
                    if aabb.overlaps(&bj) {
                        self.track(i, j);
                    }
                }
            }
        }
        // Only the clock moved for these (updated objects left the answer before): a pair
        // gone and out of the window has passed.
        for k in before {
            if !self.answer.contains(&k) && !self.in_window.contains(&k) {
                self.retired.insert(k);
            }
        }
    }

    /// Compares the touched pairs with what was last reported.
    fn changes(&mut self) -> Vec<Change> {
        let mut out = Vec::new();
        let (tol_t, tol_d) = (self.params.update_seconds, self.params.update_distance);
        let touched: Vec<Key> = self.touched.drain().collect();
        for key in touched {
            let now = if self.answer.contains(&key) {
                self.numbers(key)
            } else {
                None
            };
            match (now, self.reported.get(&key)) {
                (Some(p), None) => {
                    self.reported.insert(key, p.clone());
                    out.push(Change::Predicted(p));
                }
                (Some(p), Some(old)) => {
                    // An ongoing contact's t_contact is the clock: that is not news.
                    let moved = (p.contact.t_contact - old.contact.t_contact).abs() > tol_t
                        && p.contact.t_contact > self.clock;
                    let cpa = (p.contact.min_distance - old.contact.min_distance).abs() > tol_d;
                    if moved || cpa {
                        self.reported.insert(key, p.clone());
                        out.push(Change::Updated(p));
                    }
                }
                (None, Some(_)) => {
                    let old = self.reported.remove(&key).expect("present");
                    out.push(if self.retired.contains(&key) {
                        Change::Passed(old)
                    } else {
                        Change::Cleared(old)
                    });
                }
                (None, None) => {}
            }
        }
        self.retired.clear();
        out.sort_by(|x, y| {
            let (p, q) = (x.pair(), y.pair());
            p.contact
                .t_contact
                .total_cmp(&q.contact.t_contact)
                .then_with(|| (&p.a, &p.b).cmp(&(&q.a, &q.b)))
        });
        out
    }
}

/// The two states of a pair as the solver and the filter see them.
enum Pair<'a> {
    Metric(&'a ObjectState, &'a ObjectState),
    Geo(&'a GeoState, &'a GeoState, Box<(ObjectState, ObjectState)>),
}

impl Pair<'_> {
    fn states(&self) -> (&ObjectState, &ObjectState) {
        match self {
            Pair::Metric(a, b) => (a, b),
            Pair::Geo(_, _, p) => (&p.0, &p.1),
        }
    }
}
