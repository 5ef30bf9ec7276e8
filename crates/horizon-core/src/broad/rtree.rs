//! The baseline: an R-tree (`rstar`) bulk-loaded with the swept boxes, joined with itself.

use rayon::prelude::*;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use super::{BroadPhase, BroadReport, JoinOut, Scene, timed};
use crate::motion::Aabb;

pub(crate) struct RTreeJoin;

pub(crate) type BoxItem = GeomWithData<Rectangle<[f64; 3]>, u32>;

pub(crate) fn tree_of(boxes: &[Aabb], ids: impl Iterator<Item = u32>) -> RTree<BoxItem> {
    let items = ids
        .map(|i| {
            let b = &boxes[i as usize];
            GeomWithData::new(Rectangle::from_corners(b.lo, b.hi), i)
        })
        .collect();
    RTree::bulk_load(items)
}

pub(crate) fn envelope(b: &Aabb) -> AABB<[f64; 3]> {
    AABB::from_corners(b.lo, b.hi)
}

impl BroadPhase for RTreeJoin {
    fn join(&self, scene: &Scene<'_>) -> (JoinOut, BroadReport) {
        let (tree, index_seconds) = timed(|| tree_of(&scene.boxes, 0..scene.boxes.len() as u32));
        let (out, join_seconds) = timed(|| {
            // The tree join is sequential in rstar; the narrow phase over its output is not.
            let pairs: Vec<(u32, u32)> = tree
                .intersection_candidates_with_other_tree(&tree)
                .filter(|(x, y)| x.data < y.data)
                .map(|(x, y)| (x.data, y.data))
                .collect();
            let mut out = pairs
                .par_chunks(1 << 12)
                .fold(JoinOut::default, |mut out, chunk| {
                    for &(i, j) in chunk {
                        scene.test_pair(i, j, &mut out);
                    }
                    out
                })
                .reduce(JoinOut::default, JoinOut::merge);
            // The tree join's envelope test is the projection test: every pair it yields passed.
            out.counters.candidates = pairs.len() as u64;
            out
        });
        let report = BroadReport {
            index_seconds,
            join_seconds,
            ..Default::default()
        };
        (out, report)
    }
}
