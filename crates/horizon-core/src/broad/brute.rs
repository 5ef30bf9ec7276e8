//! All pairs: O(n²), the test oracle.

use rayon::prelude::*;

use super::{BroadPhase, BroadReport, JoinOut, Scene, timed};

pub(crate) struct Brute;

impl BroadPhase for Brute {
    fn join(&self, scene: &Scene<'_>) -> (JoinOut, BroadReport) {
        let n = scene.boxes.len() as u32;
        let (out, join_seconds) = timed(|| {
            (0..n)
                .into_par_iter()
                .fold(JoinOut::default, |mut out, i| {
                    for j in i + 1..n {
                        out.candidate(scene, i, j);
                    }
                    out
                })
                .reduce(JoinOut::default, JoinOut::merge)
        });
        let report = BroadReport {
            join_seconds,
            ..Default::default()
        };
        (out, report)
    }
}
