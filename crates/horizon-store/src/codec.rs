//! The on-disk encoding of object states and log records (little-endian, versioned).
//!
//! ```text
//! state   := id_len:u16 id:bytes t:f64 dims:u8 p:f64×dims v:f64×dims
//!            motion:u8 (0 none | 1 accel f64×dims | 2 force f64×dims mass:f64)
//!            shape:u8  (0 point | 1 box f64×dims | 2 radius f64)
//! meta    := mask:u8 (name kind group status) string×popcount   (string := len:u16 bytes)
//! geo     := id t:f64 lat:f64 lon:f64 mask:u8 (alt speed course vertical_rate heading
//!            accel shape hull), then each present field: f64 | accel n:u8 f64×n |
//!            shape as above with n:u8 before box | hull f64×4; then meta
//! object  := 0 state meta | 1 geo
//! record  := len:u32 crc32(payload):u32 payload
//! payload := 3 received_at:f64 count:u32 object×count     (upsert batch)
//!          | 2 received_at:f64 id_len:u16 id:bytes         (delete)
//!          | 1 received_at:f64 count:u32 state×count      (upsert batch, before metadata;
//!                                                           still read)
//! ```
//!
//! Decoding re-validates every state, so a damaged record that happens to pass its checksum
//! still cannot put an invalid state into the table.

use horizon_core::{
    GeoStateInput, Hull, Meta, Object, ObjectInput, ObjectState, Shape, ShapeInput, StateInput,
};

/// Appends the encoding of `s`.
pub fn put_state(buf: &mut Vec<u8>, s: &ObjectState) {
    let input = s.to_input();
    let d = s.dims();
    buf.extend_from_slice(&(s.id().len() as u16).to_le_bytes());
    buf.extend_from_slice(s.id().as_bytes());
    put_f64(buf, s.t());
    buf.push(d as u8);
    put_all(buf, &input.p);
    let v = if input.v.is_empty() {
        vec![0.0; d]
    } else {
        input.v
    };
    put_all(buf, &v);
    match (&input.accel, &input.force, input.mass) {
        (Some(a), _, _) => {
            buf.push(1);
            put_all(buf, a);
        }
        (None, Some(f), Some(m)) => {
            buf.push(2);
            put_all(buf, f);
            put_f64(buf, m);
        }
        _ => buf.push(0),
    }
    match s.shape() {
        Shape::Point => buf.push(0),
        Shape::Box(w) => {
            buf.push(1);
            put_all(buf, &w[..d]);
        }
        Shape::Sphere(r) => {
            buf.push(2);
            put_f64(buf, r);
        }
    }
}

/// Appends the encoding of an object.
pub fn put_object(buf: &mut Vec<u8>, o: &Object) {
    match o {
        Object::Metric(s) => {
            buf.push(0);
            put_state(buf, s);
        }
        Object::Geo(g) => {
            buf.push(1);
            put_geo(buf, &g.to_input());
        }
    }
    put_meta(buf, o.meta());
}

fn put_str(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&(s.len() as u16).to_le_bytes());
    buf.extend_from_slice(s.as_bytes());
}

fn put_meta(buf: &mut Vec<u8>, m: &Meta) {
    let fields = [&m.name, &m.kind, &m.group, &m.status];
    let mask = fields
        .iter()
        .enumerate()
        .fold(0u8, |k, (j, f)| k | (u8::from(f.is_some()) << j));
    buf.push(mask);
    for f in fields.into_iter().flatten() {
        put_str(buf, f);
    }
}

fn put_shape(buf: &mut Vec<u8>, s: &Option<ShapeInput>) {
    match s {
        Some(ShapeInput {
            half_extents: Some(w),
            ..
        }) => {
            buf.push(1);
            buf.push(w.len() as u8);
            put_all(buf, w);
        }
        Some(ShapeInput {
            radius: Some(r), ..
        }) => {
            buf.push(2);
            put_f64(buf, *r);
        }
        _ => buf.push(0),
    }
}

fn put_geo(buf: &mut Vec<u8>, g: &GeoStateInput) {
    put_str(buf, &g.id);
    put_all(buf, &[g.t, g.lat, g.lon]);
    let scalars = [g.alt, g.speed, g.course, g.vertical_rate, g.heading];
    let mut mask = scalars
        .iter()
        .enumerate()
        .fold(0u8, |k, (j, f)| k | (u8::from(f.is_some()) << j));
    mask |= u8::from(g.accel.is_some()) << 5
        | u8::from(g.shape.is_some()) << 6
        | u8::from(g.hull.is_some()) << 7;
    buf.push(mask);
    for x in scalars.into_iter().flatten() {
        put_f64(buf, x);
    }
    if let Some(a) = &g.accel {
        buf.push(a.len() as u8);
        put_all(buf, a);
    }
    if g.shape.is_some() {
        put_shape(buf, &g.shape);
    }
    if let Some(h) = g.hull {
        put_all(buf, &[h.to_bow, h.to_stern, h.to_port, h.to_starboard]);
    }
}

pub fn put_f64(buf: &mut Vec<u8>, x: f64) {
    buf.extend_from_slice(&x.to_le_bytes());
}

fn put_all(buf: &mut Vec<u8>, xs: &[f64]) {
    for &x in xs {
        put_f64(buf, x);
    }
}

/// A cursor over bytes; every read fails cleanly past the end.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.pos))?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.bytes(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.bytes(2)?.try_into().expect("2 bytes"),
        ))
    }

    pub fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.bytes(4)?.try_into().expect("4 bytes"),
        ))
    }

    pub fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.bytes(8)?.try_into().expect("8 bytes"),
        ))
    }

    pub fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(
            self.bytes(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn f64s(&mut self, n: usize) -> Result<Vec<f64>, String> {
        (0..n).map(|_| self.f64()).collect()
    }

    pub fn string(&mut self) -> Result<String, String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.bytes(n)?.to_vec()).map_err(|_| "id is not UTF-8".to_string())
    }

    fn opt_str(&mut self, present: bool) -> Result<Option<String>, String> {
        present.then(|| self.string()).transpose()
    }

    fn shape(&mut self) -> Result<Option<ShapeInput>, String> {
        Ok(match self.u8()? {
            0 => None,
            1 => {
                let n = self.u8()? as usize;
                Some(ShapeInput {
                    half_extents: Some(self.f64s(n)?),
                    radius: None,
                })
            }
            2 => Some(ShapeInput {
                half_extents: None,
                radius: Some(self.f64()?),
            }),
            k => return Err(format!("bad shape tag {k}")),
        })
    }

    /// One object: a metric or geographic state and its metadata.
    pub fn object(&mut self) -> Result<Object, String> {
        let mut input = match self.u8()? {
            0 => ObjectInput::Metric(self.state_input()?),
            1 => ObjectInput::Geo(self.geo()?),
            k => return Err(format!("bad object tag {k}")),
        };
        let mask = self.u8()?;
        let (name, kind, group, status) = (
            self.opt_str(mask & 1 != 0)?,
            self.opt_str(mask & 2 != 0)?,
            self.opt_str(mask & 4 != 0)?,
            self.opt_str(mask & 8 != 0)?,
        );
        macro_rules! set_meta {
            ($s:expr) => {{
                $s.name = name;
                $s.kind = kind;
                $s.group = group;
                $s.status = status;
            }};
        }
        match &mut input {
            ObjectInput::Metric(s) => set_meta!(s),
            ObjectInput::Geo(g) => set_meta!(g),
        }
        input.validate().map_err(|e| format!("invalid state: {e}"))
    }

    fn geo(&mut self) -> Result<GeoStateInput, String> {
        let id = self.string()?;
        let [t, lat, lon] = [self.f64()?, self.f64()?, self.f64()?];
        let mask = self.u8()?;
        let mut scalar = |bit: u8| -> Result<Option<f64>, String> {
            (mask & (1 << bit) != 0).then(|| self.f64()).transpose()
        };
        let (alt, speed, course, vertical_rate, heading) =
            (scalar(0)?, scalar(1)?, scalar(2)?, scalar(3)?, scalar(4)?);
        let accel = if mask & (1 << 5) != 0 {
            let n = self.u8()? as usize;
            Some(self.f64s(n)?)
        } else {
            None
        };
        let shape = if mask & (1 << 6) != 0 {
            self.shape()?
        } else {
            None
        };
        let hull = if mask & (1 << 7) != 0 {
            Some(Hull {
                to_bow: self.f64()?,
                to_stern: self.f64()?,
                to_port: self.f64()?,
                to_starboard: self.f64()?,
            })
        } else {
            None
        };
        Ok(GeoStateInput {
            id,
            t,
            lat,
            lon,
            alt,
            speed,
            course,
            vertical_rate,
            accel,
            heading,
            shape,
            hull,
            ..Default::default()
        })
    }

    /// A metric state as written before metadata existed (record kind 1, `HZSNAP01`).
    pub fn state(&mut self) -> Result<ObjectState, String> {
        self.state_input()?
            .validate()
            .map_err(|e| format!("invalid state: {e}"))
    }

    fn state_input(&mut self) -> Result<StateInput, String> {
        let id = self.string()?;
        let t = self.f64()?;
        let d = self.u8()? as usize;
        if !(2..=3).contains(&d) {
            return Err(format!("bad dimension {d}"));
        }
        let mut s = StateInput::new(id, t, &self.f64s(d)?, &self.f64s(d)?);
        match self.u8()? {
            0 => {}
            1 => s.accel = Some(self.f64s(d)?),
            2 => {
                s.force = Some(self.f64s(d)?);
                s.mass = Some(self.f64()?);
            }
            k => return Err(format!("bad motion tag {k}")),
        }
        s.shape = match self.u8()? {
            0 => None,
            1 => Some(ShapeInput {
                half_extents: Some(self.f64s(d)?),
                radius: None,
            }),
            2 => Some(ShapeInput {
                half_extents: None,
                radius: Some(self.f64()?),
            }),
            k => return Err(format!("bad shape tag {k}")),
        };
        Ok(s)
    }
}

/// A log operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Insert or replace these states, received at this wall-clock time (unix seconds).
    Upsert {
        received_at: f64,
        states: Vec<Object>,
    },
    /// Remove this id.
    Delete { received_at: f64, id: String },
}

pub fn encode_op(op: &Op) -> Vec<u8> {
    let mut payload = Vec::new();
    match op {
        Op::Upsert {
            received_at,
            states,
        } => {
            payload.reserve(16 + states.len() * 96);
            payload.push(3);
            put_f64(&mut payload, *received_at);
            payload.extend_from_slice(&(states.len() as u32).to_le_bytes());
            for s in states {
                put_object(&mut payload, s);
            }
        }
        Op::Delete { received_at, id } => {
            payload.push(2);
            put_f64(&mut payload, *received_at);
            payload.extend_from_slice(&(id.len() as u16).to_le_bytes());
            payload.extend_from_slice(id.as_bytes());
        }
    }
    frame(&payload)
}

/// `len crc payload`.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut rec = Vec::with_capacity(payload.len() + 8);
    rec.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    rec.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    rec.extend_from_slice(payload);
    rec
}

pub fn decode_op(payload: &[u8]) -> Result<Op, String> {
    let mut r = Reader::new(payload);
    let op = match r.u8()? {
        kind @ (1 | 3) => {
            let received_at = r.f64()?;
            let n = r.u32()? as usize;
            let mut states = Vec::with_capacity(n.min(1 << 20));
            for _ in 0..n {
                states.push(if kind == 1 {
                    r.state()?.into()
                } else {
                    r.object()?
                });
            }
            Op::Upsert {
                received_at,
                states,
            }
        }
        2 => Op::Delete {
            received_at: r.f64()?,
            id: r.string()?,
        },
        k => return Err(format!("unknown record kind {k}")),
    };
    if !r.is_empty() {
        return Err("trailing bytes in record".into());
    }
    Ok(op)
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn ops_round_trip_bit_for_bit() {
        let states = vec![
            StateInput::new("a", 1.5, &[1.0, 2.0], &[])
                .validate()
                .unwrap(),
            StateInput::new(
                "b",
                -3.0,
                &[0.1, 0.2, 0.30000000000000004],
                &[1e-300, 5.0, -0.0],
            )
            .with_force(&[1.0, 2.0, 3.0], 7.0)
            .with_box(&[1.0, 0.0, 2.5])
            .validate()
            .unwrap(),
            StateInput::new("ç", 0.0, &[1.0, 2.0], &[3.0, 4.0])
                .with_accel(&[0.5, -0.5])
                .with_radius(2.0)
                .validate()
                .unwrap(),
        ];
        let op = Op::Upsert {
            received_at: 1.7e9,
            states: states.into_iter().map(Object::from).collect(),
        };
        let rec = encode_op(&op);
        assert_eq!(decode_op(&rec[8..]).unwrap(), op);
        let del = Op::Delete {
            received_at: 2.0,
            id: "b".into(),
        };
        assert_eq!(decode_op(&encode_op(&del)[8..]).unwrap(), del);
    }

    #[test]
    fn records_from_before_metadata_still_decode() {
        let s = StateInput::new("a", 1.0, &[1.0, 2.0], &[3.0, 4.0])
            .with_radius(1.0)
            .validate()
            .unwrap();
        let mut payload = vec![1];
        put_f64(&mut payload, 5.0);
        payload.extend_from_slice(&1u32.to_le_bytes());
        put_state(&mut payload, &s);
        assert_eq!(
            decode_op(&payload).unwrap(),
            Op::Upsert {
                received_at: 5.0,
                states: vec![s.into()]
            }
        );
    }

    #[test]
    fn damaged_payloads_are_errors_not_panics() {
        let op = Op::Upsert {
            received_at: 0.0,
            states: vec![
                StateInput::new("a", 0.0, &[1.0, 2.0], &[])
                    .validate()
                    .unwrap()
                    .into(),
            ],
        };
        let rec = encode_op(&op);
        for cut in 0..rec.len() - 8 {
            assert!(decode_op(&rec[8..8 + cut]).is_err());
        }
        let mut bad = rec[8..].to_vec();
        bad[0] = 9;
        assert!(decode_op(&bad).is_err());
    }
}
