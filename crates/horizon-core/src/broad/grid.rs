//! GPCD's uniform grid (paper §3.2) with T-Collide-style spatial hashing.
//!
//! 1. Cell size per axis = `c_j ×` the mean swept-box length on that axis.
//! 2. Each swept box is "drawn" into every cell it covers (T-Collide). Each (cell, object)
//!    entry is one `u64`: a compact cell key (only as many bits per axis as the grid needs)
//!    above the object index. Entries are written in parallel straight into one array and
//!    sorted by one parallel radix scatter on the top key bits plus an in-cache sort per
//!    bucket, so every cell becomes one contiguous run: no hash map of vectors, no per-cell
//!    allocation, and few passes over memory (the build is bandwidth-bound).
//! 3. Pairs are enumerated per cell. A pair sharing several cells is tested only in its
//!    *reference cell* — the cell holding the minimum corner of the overlap of the two cell
//!    ranges — so each pair is tested exactly once without a set of seen pairs.
//!
//! Two guards keep skewed scenes from blowing up, which the paper leaves open:
//! - an object covering more than [`GridParams::max_cells_per_object`] cells (one moving
//!   far faster than the rest) is not drawn; such *large* objects go into a small R-tree,
//!   which every grid object queries and which is joined with itself;
//! - a cell holding more than [`GridParams::crowded_cell`] objects (a tight cluster) is
//!   sorted along x and swept, instead of comparing all its pairs.

use rayon::prelude::*;

use super::rtree::{envelope, tree_of};
use super::{BroadPhase, BroadReport, GridReport, JoinOut, Scene, timed};
use crate::hugebuf::HugeBuf;
use crate::motion::Aabb;

/// Tuning of the grid. `Default` has `c_j = 2` (the paper used 1; see the field).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// `c_j`: cell size = `c_j ×` mean swept-box length on axis j. Smaller cells mean fewer
    /// false candidates per cell but more cells per object (more entries to build and
    /// scan). The paper's 1 puts a typical box in about two cells per axis, ~8 entries
    /// per object in 3D; 2 writes ~3.4. Building an entry costs more here than testing
    /// the extra candidates a coarser cell brings, so `horizondb bench`'s cell-scale
    /// sweeps measure 2 faster than 1 on uniform, skewed and short-horizon scenes alike,
    /// and lighter on memory ([`DEFAULT_CELL_SCALE`]).
    pub cell_scale: [f64; 3],
    /// Objects covering more cells than this are indexed apart (see the module docs).
    /// Too low sends ordinary objects to the slower side index; too high lets one fast
    /// object write thousands of entries.
    pub max_cells_per_object: u64,
    /// Cells with more objects than this are swept along x instead of compared all-pairs.
    pub crowded_cell: usize,
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            cell_scale: [DEFAULT_CELL_SCALE; 3],
            max_cells_per_object: 64,
            crowded_cell: 32,
        }
    }
}

/// The default `c_j` on every axis.
pub const DEFAULT_CELL_SCALE: f64 = 2.0;

/// Cells per axis are capped so a key always packs into 63 bits.
const MAX_CELLS_PER_AXIS: u32 = 1 << 21;

/// Grid geometry: where cells are and how big.
#[derive(Debug, Clone, Copy)]
struct Layout {
    origin: [f64; 3],
    size: [f64; 3],
    inv: [f64; 3],
    cells: [u32; 3],
    /// Bit offset of each axis in a cell key (x lowest).
    shift: [u32; 3],
    /// Bits a key uses in all.
    key_bits: u32,
}

impl Layout {
    fn new(boxes: &[Aabb], scale: [f64; 3], obj_bits: u32) -> Layout {
        let n = boxes.len().max(1) as f64;
        // Extent and summed lengths per fixed chunk, combined in chunk order: parallel,
        // yet the same cell size on every run.
        let parts: Vec<[[f64; 3]; 3]> = boxes
            .par_chunks(1 << 16)
            .map(|bs| {
                let (mut lo, mut hi, mut len) =
                    ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3], [0.0; 3]);
                for b in bs {
                    for j in 0..3 {
                        lo[j] = lo[j].min(b.lo[j]);
                        hi[j] = hi[j].max(b.hi[j]);
                        len[j] += b.hi[j] - b.lo[j];
                    }
                }
                [lo, hi, len]
            })
            .collect();
        let mut origin = [f64::INFINITY; 3];
        let mut top = [f64::NEG_INFINITY; 3];
        let mut sum = [0.0f64; 3];
        for [lo, hi, len] in parts {
            for j in 0..3 {
                origin[j] = origin[j].min(lo[j]);
                top[j] = top[j].max(hi[j]);
                sum[j] += len[j];
            }
        }
        let mut size = [1.0; 3];
        let mut inv = [1.0; 3];
        let mut cells = [1; 3];
        for j in 0..3 {
            if boxes.is_empty() {
                origin[j] = 0.0;
                continue;
            }
            let extent = top[j] - origin[j];
            // Flat axis (every box has zero length): the mean is 0; fall back to one cell
            // per axis-extent chunk instead of dividing by zero.
            let floor = extent / (MAX_CELLS_PER_AXIS - 1) as f64;
            let mut s = scale[j] * sum[j] / n;
            if !(s >= floor && s > 0.0) {
                s = if floor > 0.0 { floor } else { 1.0 };
            }
            size[j] = s;
            inv[j] = 1.0 / s;
            cells[j] = ((extent * inv[j]).floor() as u64 + 1).min(MAX_CELLS_PER_AXIS as u64) as u32;
        }
        let bits_of = |c: u32| u32::BITS - (c - 1).leading_zeros();
        let mut bits = cells.map(bits_of);
        // Keys must leave room for the object index in a u64 entry: coarsen the finest
        // axes until they fit (bigger cells are always conservative).
        while bits.iter().sum::<u32>() + obj_bits > 64 {
            let j = (0..3).max_by_key(|&j| bits[j]).unwrap_or(0);
            let extent = (cells[j] - 1) as f64 * size[j];
            size[j] *= 2.0;
            inv[j] = 1.0 / size[j];
            cells[j] = ((extent * inv[j]).floor() as u64 + 1).min(MAX_CELLS_PER_AXIS as u64) as u32;
            bits[j] = bits_of(cells[j]);
        }
        Layout {
            origin,
            size,
            inv,
            cells,
            shift: [0, bits[0], bits[0] + bits[1]],
            key_bits: bits.iter().sum(),
        }
    }

    #[inline]
    fn pack(&self, c: [u32; 3]) -> u64 {
        (c[0] as u64) << self.shift[0]
            | (c[1] as u64) << self.shift[1]
            | (c[2] as u64) << self.shift[2]
    }

    /// Cell index of coordinate `x` on axis `j`. Monotone in `x`, so overlapping boxes
    /// always share a cell whatever the rounding.
    #[inline]
    fn cell(&self, j: usize, x: f64) -> u32 {
        // No `floor`: on baseline x86-64 it is a libm call, and for c > 0 truncation is
        // the floor. Everything at or below 0 clamps to cell 0.
        let c = (x - self.origin[j]) * self.inv[j];
        if c <= 0.0 {
            0
        } else if c >= (self.cells[j] - 1) as f64 {
            self.cells[j] - 1
        } else {
            c as u32
        }
    }

    fn range(&self, b: &Aabb) -> CellRange {
        CellRange {
            lo: std::array::from_fn(|j| self.cell(j, b.lo[j])),
            hi: std::array::from_fn(|j| self.cell(j, b.hi[j])),
        }
    }
}

/// The block of cells a swept box covers, inclusive.
#[derive(Debug, Clone, Copy)]
struct CellRange {
    lo: [u32; 3],
    hi: [u32; 3],
}

impl CellRange {
    fn count(&self) -> u64 {
        (0..3)
            .map(|j| (self.hi[j] - self.lo[j]) as u64 + 1)
            .product()
    }

    fn for_each_cell(&self, mut f: impl FnMut([u32; 3])) {
        for z in self.lo[2]..=self.hi[2] {
            for y in self.lo[1]..=self.hi[1] {
                for x in self.lo[0]..=self.hi[0] {
                    f([x, y, z]);
                }
            }
        }
    }
}

/// Bits below the object index in an entry: bit j says the cell is the first of the
/// object's range on axis j.
const FLAG_BITS: u32 = 3;
const ALL_FIRST: u64 = (1 << FLAG_BITS) - 1;

/// The entry flags of cell `c` in range `r`.
#[inline]
fn first_flags(r: &CellRange, c: [u32; 3]) -> u64 {
    (c[0] == r.lo[0]) as u64 | ((c[1] == r.lo[1]) as u64) << 1 | ((c[2] == r.lo[2]) as u64) << 2
}

/// Whether a cell shared by two objects is the pair's *reference cell*, the minimum corner
/// of the overlap of their ranges, from the two entries' flags alone. A shared cell is at
/// or above both ranges' `lo` on every axis, so it equals the larger `lo` exactly when it
/// equals either: the cell is the first on that axis for one of the two objects.
#[inline]
fn is_reference(flags_a: u64, flags_b: u64) -> bool {
    (flags_a | flags_b) & ALL_FIRST == ALL_FIRST
}

pub(crate) struct Grid(pub GridParams);

/// The built grid. Each thread wrote its objects' entries into a region of its own, split
/// by bucket (the top cell-key bits); a bucket is the union of its pieces in every region,
/// and holds whole cells. A bucket is sorted only when the join reaches it, into per-thread
/// scratch, so it is sorted and scanned while it is in cache.
struct Built {
    layout: Layout,
    large: Vec<u32>,
    is_large: Vec<bool>,
    /// Bytes of the buffers above and of the build's histograms.
    working_bytes: u64,
    /// `cell_key << low_bits | object << FLAG_BITS | first_flags`.
    entries: HugeBuf<u64>,
    /// Piece (t, b) is `entries[starts[t][b]..starts[t][b + 1]]`.
    starts: Vec<Vec<usize>>,
    /// Key bits below the bucket digit: what a bucket's sort orders.
    rest_bits: u32,
    codec: Codec,
}

/// How an entry packs its cell key, object index and flags.
#[derive(Debug, Clone, Copy)]
struct Codec {
    /// Bits below the cell key: the object index and the flags.
    low_bits: u32,
}

impl Codec {
    #[inline]
    fn key(self, e: u64) -> u64 {
        e >> self.low_bits
    }
    #[inline]
    fn obj(self, e: u64) -> u32 {
        ((e & ((1u64 << self.low_bits) - 1)) >> FLAG_BITS) as u32
    }
}

impl Built {
    fn buckets(&self) -> usize {
        self.starts.first().map_or(0, |s| s.len() - 1)
    }

    /// Bucket `b`'s pieces, in thread (so object) order.
    fn pieces(&self, b: usize) -> impl Iterator<Item = &[u64]> + Clone {
        self.starts
            .iter()
            .map(move |s| &self.entries[s[b]..s[b + 1]])
    }
}

/// Reused buffers of one join thread.
#[derive(Default)]
struct Scratch {
    sorted: Vec<u64>,
    spare: Vec<u64>,
    counts: Vec<u32>,
}

/// Entries per top-level bucket to aim for: small enough to sort in cache.
const BUCKET_TARGET: usize = 4096;

impl Grid {
    /// Builds the grid and returns its entry count (for the micro-benchmarks).
    pub(crate) fn entries_of(&self, boxes: &[Aabb]) -> usize {
        self.build(boxes).entries.len()
    }

    /// Draws every box into its cells, writing each entry straight into its bucket: one
    /// counting pass and one scatter pass over the boxes, each thread into a region of its
    /// own. No unsorted copy of the entries ever exists, which saves a pass over memory and
    /// half the peak.
    fn build(&self, boxes: &[Aabb]) -> Built {
        let n = boxes.len();
        let low_bits = obj_bits_for(n) + FLAG_BITS;
        let layout = Layout::new(boxes, self.0.cell_scale, low_bits);
        let cap = self.0.max_cells_per_object.max(1);
        let key_bits = layout.key_bits;
        // Top-level buckets from the top key bits, ~BUCKET_TARGET entries each (about
        // eight entries per object with c = 1 in 3D), but at most 2^11 of them: the scatter
        // writes to every bucket of its thread at once, and more open pages than that
        // thrash the TLB (measured: 2^14 buckets made 10M objects 18% slower).
        let want = (8 * n / BUCKET_TARGET).max(1);
        let top = (usize::BITS - want.leading_zeros())
            .clamp(1, 11)
            .min(key_bits);
        let bins = 1usize << top;
        let digit = |key: u64| ((key >> (key_bits - top)) as usize) & (bins - 1);
        // Fixed chunks of objects, in order: region t holds chunk t, so objects ascend
        // within each cell once a bucket is sorted stably, whatever the thread count.
        let chunk = n.div_ceil(rayon::current_num_threads().max(1)).max(1);
        // Counting pass: per-thread histograms, and which objects are over the cell cap.
        let (hist, flags): (Vec<Vec<usize>>, Vec<Vec<bool>>) = boxes
            .par_chunks(chunk)
            .map(|bs| {
                let mut h = vec![0usize; bins];
                let mut big = Vec::with_capacity(bs.len());
                for b in bs {
                    let r = layout.range(b);
                    let over = r.count() > cap;
                    big.push(over);
                    if !over {
                        r.for_each_cell(|c| h[digit(layout.pack(c))] += 1);
                    }
                }
                (h, big)
            })
            .unzip();
        let is_large: Vec<bool> = flags.concat();
        let large: Vec<u32> = (0..n as u32).filter(|&i| is_large[i as usize]).collect();
        let mut starts = Vec::with_capacity(hist.len());
        let mut at = 0;
        for h in &hist {
            let mut s = Vec::with_capacity(bins + 1);
            s.push(at);
            for &c in h {
                at += c;
                s.push(at);
            }
            starts.push(s);
        }
        let mut entries = HugeBuf::zeroed(at);
        let mut regions = Vec::with_capacity(starts.len());
        let mut rest = &mut *entries;
        for s in &starts {
            let (head, tail) = rest.split_at_mut(s[bins] - s[0]);
            regions.push(head);
            rest = tail;
        }
        boxes
            .par_chunks(chunk)
            .enumerate()
            .zip(regions.into_par_iter().zip(starts.par_iter()))
            .for_each(|((t, bs), (region, s))| {
                let mut cursor: Vec<usize> = s[..bins].iter().map(|&o| o - s[0]).collect();
                for (k, b) in bs.iter().enumerate() {
                    let i = t * chunk + k;
                    if !is_large[i] {
                        let r = layout.range(b);
                        r.for_each_cell(|c| {
                            let key = layout.pack(c);
                            let d = digit(key);
                            region[cursor[d]] =
                                key << low_bits | (i as u64) << FLAG_BITS | first_flags(&r, c);
                            cursor[d] += 1;
                        });
                    }
                }
            });
        let max_bucket = (0..bins)
            .map(|b| starts.iter().map(|s| s[b + 1] - s[b]).sum::<usize>())
            .max()
            .unwrap_or(0);
        let threads = rayon::current_num_threads();
        let working_bytes = (entries.len() * 8
            + is_large.len()
            + large.len() * 4
            + hist.len() * bins * 8 * 2
            + threads * max_bucket * 8 * 2) as u64;
        Built {
            layout,
            large,
            is_large,
            working_bytes,
            entries,
            starts,
            rest_bits: key_bits - top,
            codec: Codec { low_bits },
        }
    }
}

/// Bits of an object index among `n`.
fn obj_bits_for(n: usize) -> u32 {
    (u32::BITS - (n.max(2) as u32 - 1).leading_zeros()).max(1)
}

/// Largest digit of the in-cache sort: its counts stay in L1.
const MAX_DIGIT: u32 = 12;

/// Stable LSD radix sort of one bucket's pieces on bits `[low, low + bits)` into
/// `s.sorted`: one pass when the bucket's key bits fit a digit, which is the usual case.
fn sort_bucket<'a, 'p>(
    pieces: impl Iterator<Item = &'p [u64]> + Clone,
    s: &'a mut Scratch,
    low: u32,
    bits: u32,
) -> &'a [u64] {
    let len: usize = pieces.clone().map(<[u64]>::len).sum();
    s.sorted.clear();
    if bits == 0 || len <= 32 {
        for p in pieces {
            s.sorted.extend_from_slice(p);
        }
        // Insertion sort (stable) beats radix passes on tiny buckets.
        let v = &mut s.sorted;
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && (v[j - 1] >> low) > (v[j] >> low) {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        return &s.sorted;
    }
    let passes = bits.div_ceil(MAX_DIGIT);
    let width = bits.div_ceil(passes);
    s.sorted.resize(len, 0);
    let mut shift = low;
    let end = low + bits;
    let mut first = true;
    while shift < end {
        let w = width.min(end - shift);
        let mask = (1usize << w) - 1;
        let counts = &mut s.counts;
        counts.clear();
        counts.resize(1 << w, 0);
        // The first pass reads the pieces, later ones the previous pass's output.
        std::mem::swap(&mut s.sorted, &mut s.spare);
        s.sorted.resize(len, 0);
        let mut count = |e: u64| counts[((e >> shift) as usize) & mask] += 1;
        if first {
            for p in pieces.clone() {
                p.iter().for_each(|&e| count(e));
            }
        } else {
            s.spare.iter().for_each(|&e| count(e));
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let k = *c;
            *c = sum;
            sum += k;
        }
        let dst = &mut s.sorted;
        let mut put = |e: u64| {
            let d = ((e >> shift) as usize) & mask;
            dst[counts[d] as usize] = e;
            counts[d] += 1;
        };
        if first {
            for p in pieces.clone() {
                p.iter().for_each(|&e| put(e));
            }
        } else {
            s.spare.iter().for_each(|&e| put(e));
        }
        first = false;
        shift += w;
    }
    &s.sorted
}

impl BroadPhase for Grid {
    fn join(&self, scene: &Scene<'_>) -> (JoinOut, BroadReport) {
        assert!(
            scene.boxes.len() < u32::MAX as usize,
            "the query checks the object count"
        );
        let (g, index_seconds) = timed(|| self.build(&scene.boxes));
        let crowded = self.0.crowded_cell.max(2);
        let codec = g.codec;
        let ((out, cells_used), join_seconds) = timed(|| {
            // Each bucket is sorted and scanned in one go, while it is in cache.
            let (mut out, cells_used) = (0..g.buckets())
                .into_par_iter()
                .fold(
                    || (JoinOut::default(), 0u64, Scratch::default(), Vec::new()),
                    |(mut out, mut used, mut scratch, mut crowded_buf), b| {
                        let sorted =
                            sort_bucket(g.pieces(b), &mut scratch, codec.low_bits, g.rest_bits);
                        for run in sorted.chunk_by(|x, y| codec.key(*x) == codec.key(*y)) {
                            used += 1;
                            scan_cell(scene, codec, run, crowded, &mut crowded_buf, &mut out);
                        }
                        (out, used, scratch, crowded_buf)
                    },
                )
                .map(|(o, u, _, _)| (o, u))
                .reduce(
                    || (JoinOut::default(), 0),
                    |(a, x), (b, y)| (a.merge(b), x + y),
                );
            if !g.large.is_empty() {
                out = out.merge(join_large(scene, &g));
            }
            (out, cells_used)
        });
        let report = BroadReport {
            index_seconds,
            join_seconds,
            grid: Some(GridReport {
                cell_size: g.layout.size,
                cells_per_axis: g.layout.cells,
                cells_used,
                entries: g.entries.len() as u64,
                large_objects: g.large.len() as u64,
                working_bytes: g.working_bytes,
            }),
        };
        (out, report)
    }
}

/// Tests every pair in one cell that has this cell as its reference cell.
fn scan_cell(
    scene: &Scene<'_>,
    g: Codec,
    run: &[u64],
    crowded: usize,
    scratch: &mut Vec<u64>,
    out: &mut JoinOut,
) {
    if run.len() < 2 {
        return;
    }
    if run.len() <= crowded {
        for (x, &e) in run.iter().enumerate() {
            for &f in &run[x + 1..] {
                // The reference test needs only the two entries: no box is read for a
                // pair that belongs to another cell.
                if is_reference(e, f) {
                    out.candidate(scene, g.obj(e), g.obj(f));
                }
            }
        }
        return;
    }
    // Crowded cell: sort along x and sweep, so pairs apart on x are never enumerated.
    scratch.clear();
    scratch.extend_from_slice(run);
    let lo_x = |e: u64| scene.boxes[g.obj(e) as usize].lo[0];
    scratch.sort_unstable_by(|&a, &b| lo_x(a).total_cmp(&lo_x(b)).then(a.cmp(&b)));
    for (x, &e) in scratch.iter().enumerate() {
        let hi_x = scene.boxes[g.obj(e) as usize].hi[0];
        for &f in &scratch[x + 1..] {
            if lo_x(f) > hi_x {
                break;
            }
            if is_reference(e, f) {
                out.candidate(scene, g.obj(e), g.obj(f));
            }
        }
    }
}

/// Pairs involving large objects: every grid object against an R-tree of the large ones,
/// and the large ones against each other.
fn join_large(scene: &Scene<'_>, g: &Built) -> JoinOut {
    let tree = tree_of(&scene.boxes, g.large.iter().copied());
    let n = scene.boxes.len() as u32;
    let small = (0..n)
        .into_par_iter()
        .filter(|&i| !g.is_large[i as usize])
        .fold(JoinOut::default, |mut out, i| {
            for hit in tree.locate_in_envelope_intersecting(envelope(&scene.boxes[i as usize])) {
                // The tree's envelope test is the projection test.
                out.counters.candidates += 1;
                scene.test_pair(i, hit.data, &mut out);
            }
            out
        })
        .reduce(JoinOut::default, JoinOut::merge);
    let mut big = JoinOut::default();
    for (x, y) in tree.intersection_candidates_with_other_tree(&tree) {
        if x.data < y.data {
            big.counters.candidates += 1;
            scene.test_pair(x.data, y.data, &mut big);
        }
    }
    small.merge(big)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn flat_axis_does_not_divide_by_zero() {
        let boxes = vec![
            Aabb {
                lo: [0.0, 0.0, 0.0],
                hi: [1.0, 1.0, 0.0],
            },
            Aabb {
                lo: [5.0, 5.0, 0.0],
                hi: [6.0, 6.0, 0.0],
            },
        ];
        let l = Layout::new(&boxes, [1.0; 3], 20);
        assert_eq!(l.size, [1.0, 1.0, 1.0]);
        assert_eq!(l.cells, [7, 7, 1]);
        assert_eq!(l.cell(2, 0.0), 0);
    }

    /// Two tiny boxes 1e9 apart: more cells than any key can hold at the mean box size.
    fn far_apart_boxes() -> Vec<Aabb> {
        vec![
            Aabb {
                lo: [0.0; 3],
                hi: [1e-6; 3],
            },
            Aabb {
                lo: [1e9; 3],
                hi: [1e9 + 1e-6; 3],
            },
        ]
    }

    #[test]
    fn huge_extent_caps_cells_per_axis() {
        let boxes = far_apart_boxes();
        let l = Layout::new(&boxes, [1.0; 3], 20);
        assert!(l.cells.iter().all(|&c| c <= MAX_CELLS_PER_AXIS));
        assert_eq!(l.cell(0, 1e9 + 1e-6), l.cells[0] - 1);
    }

    #[test]
    fn flags_mark_exactly_one_shared_cell_the_reference_cell() {
        // Every pair of small ranges on a 5×4×3 lattice: among the cells both cover, the
        // flag rule accepts exactly the minimum corner of the overlap.
        let mut ranges = Vec::new();
        for (lx, hx) in [(0, 0), (0, 2), (1, 3), (2, 4), (3, 3)] {
            for (ly, hy) in [(0, 1), (1, 1), (1, 3)] {
                for (lz, hz) in [(0, 0), (0, 2), (1, 2)] {
                    ranges.push(CellRange {
                        lo: [lx, ly, lz],
                        hi: [hx, hy, hz],
                    });
                }
            }
        }
        for a in &ranges {
            for b in &ranges {
                let mut accepted = Vec::new();
                let mut shared = 0;
                a.for_each_cell(|c| {
                    let mut in_b = false;
                    b.for_each_cell(|cb| in_b |= cb == c);
                    if in_b {
                        shared += 1;
                        if is_reference(first_flags(a, c), first_flags(b, c)) {
                            accepted.push(c);
                        }
                    }
                });
                if shared == 0 {
                    assert!(accepted.is_empty());
                } else {
                    let corner: [u32; 3] = std::array::from_fn(|j| a.lo[j].max(b.lo[j]));
                    assert_eq!(accepted, vec![corner], "{a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn build_groups_entries_by_cell_with_objects_ascending() {
        // Enough boxes for many top-level buckets; some spanning several cells.
        let boxes: Vec<Aabb> = (0..20_000u32)
            .map(|i| {
                let x = ((i * 7919) % 1000) as f64;
                let y = ((i * 104_729) % 1000) as f64;
                let w = if i % 7 == 0 { 2.5 } else { 0.4 };
                Aabb {
                    lo: [x, y, 0.0],
                    hi: [x + w, y + w, 1.0],
                }
            })
            .collect();
        // Fine cells need two sorting passes per bucket, coarse ones one.
        for (c, passes) in [(1.0, 2), (8.0, 1)] {
            let g = Grid(GridParams {
                cell_scale: [c; 3],
                ..GridParams::default()
            })
            .build(&boxes);
            assert_eq!(g.rest_bits.div_ceil(MAX_DIGIT), passes, "c = {c}");
            let mut scratch = Scratch::default();
            let mut got = Vec::new();
            for b in 0..g.buckets() {
                got.extend_from_slice(sort_bucket(
                    g.pieces(b),
                    &mut scratch,
                    g.codec.low_bits,
                    g.rest_bits,
                ));
            }
            let mut want: Vec<u64> = Vec::new();
            for (i, b) in boxes.iter().enumerate() {
                let r = g.layout.range(b);
                r.for_each_cell(|c| {
                    want.push(
                        g.layout.pack(c) << g.codec.low_bits
                            | (i as u64) << FLAG_BITS
                            | first_flags(&r, c),
                    )
                });
            }
            want.sort_unstable();
            assert_eq!(got, want, "c = {c}");
        }
    }

    #[test]
    fn keys_coarsen_to_leave_room_for_object_indices() {
        let boxes = far_apart_boxes();
        let l = Layout::new(&boxes, [1.0; 3], 30);
        assert!(l.key_bits + 30 <= 64, "{l:?}");
        assert_eq!(l.cell(0, 1e9 + 1e-6), l.cells[0] - 1);
        assert_eq!(l.cell(0, 0.0), 0);
    }
}
