//! A dynamic uniform hash grid of boxes: insert, remove, query. The watch keeps one per
//! space (metric, geographic ECEF) so an update finds its neighbours without a re-query.

use std::collections::HashMap;

use crate::motion::Aabb;

/// Boxes spanning more cells than this go to a list every query scans.
const MAX_CELLS: i64 = 512;

#[derive(Debug, Default)]
pub(crate) struct DynGrid {
    cell: [f64; 3],
    cells: HashMap<[i64; 3], Vec<u32>>,
    large: Vec<u32>,
}

impl DynGrid {
    /// An empty grid whose cells are `scale` × the mean box extent per axis.
    pub fn sized_for<'a>(boxes: impl Iterator<Item = &'a Aabb>, scale: f64) -> DynGrid {
        let (mut sum, mut n) = ([0.0; 3], 0usize);
        for b in boxes {
            for (j, s) in sum.iter_mut().enumerate() {
                *s += b.hi[j] - b.lo[j];
            }
            n += 1;
        }
        let cell = sum.map(|s| {
            let c = scale * s / n.max(1) as f64;
            if c.is_finite() && c > 0.0 { c } else { 1.0 }
        });
        DynGrid {
            cell,
            ..Default::default()
        }
    }

    fn range(&self, b: &Aabb) -> Option<([i64; 3], [i64; 3])> {
        let mut lo = [0; 3];
        let mut hi = [0; 3];
        let mut count = 1i64;
        for j in 0..3 {
            let (l, h) = (b.lo[j] / self.cell[j], b.hi[j] / self.cell[j]);
            if !(l.is_finite() && h.is_finite()) || h - l > MAX_CELLS as f64 {
                return None;
            }
            lo[j] = l.floor() as i64;
            hi[j] = h.floor() as i64;
            count = count.saturating_mul(hi[j] - lo[j] + 1);
        }
        (count <= MAX_CELLS).then_some((lo, hi))
    }

    fn each_cell(lo: [i64; 3], hi: [i64; 3], mut f: impl FnMut([i64; 3])) {
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    f([x, y, z]);
                }
            }
        }
    }

    pub fn insert(&mut self, i: u32, b: &Aabb) {
        match self.range(b) {
            Some((lo, hi)) => Self::each_cell(lo, hi, |c| self.cells.entry(c).or_default().push(i)),
            None => self.large.push(i),
        }
    }

    pub fn remove(&mut self, i: u32, b: &Aabb) {
        match self.range(b) {
            Some((lo, hi)) => Self::each_cell(lo, hi, |c| {
                if let Some(v) = self.cells.get_mut(&c) {
                    if let Some(k) = v.iter().position(|&x| x == i) {
                        v.swap_remove(k);
                    }
                    if v.is_empty() {
                        self.cells.remove(&c);
                    }
                }
            }),
            None => {
                if let Some(k) = self.large.iter().position(|&x| x == i) {
                    self.large.swap_remove(k);
                }
            }
        }
    }

    /// Every object that may overlap `b` (with repeats), then every large one.
    pub fn query(&self, b: &Aabb, out: &mut Vec<u32>) {
        match self.range(b) {
            Some((lo, hi)) => Self::each_cell(lo, hi, |c| {
                if let Some(v) = self.cells.get(&c) {
                    out.extend_from_slice(v);
                }
            }),
            // A huge query box meets everything.
            None => out.extend(self.cells.values().flatten().copied()),
        }
        out.extend_from_slice(&self.large);
    }
}
