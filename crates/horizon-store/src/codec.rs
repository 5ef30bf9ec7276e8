//! The on-disk encoding of object states and log records (little-endian, versioned).
//!
//! ```text
//! state   := id_len:u16 id:bytes t:f64 dims:u8 p:f64×dims v:f64×dims
//!            motion:u8 (0 none | 1 accel f64×dims | 2 force f64×dims mass:f64)
//!            shape:u8  (0 point | 1 box f64×dims | 2 radius f64)
//! record  := len:u32 crc32(payload):u32 payload
//! payload := 1 received_at:f64 count:u32 state×count      (upsert batch)
//!          | 2 received_at:f64 id_len:u16 id:bytes         (delete)
//! ```
//!
//! Decoding re-validates every state, so a damaged record that happens to pass its checksum
//! still cannot put an invalid state into the table.

use horizon_core::{ObjectState, Shape, ShapeInput, StateInput};

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

    pub fn state(&mut self) -> Result<ObjectState, String> {
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
        s.validate().map_err(|e| format!("invalid state: {e}"))
    }
}

/// A log operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Insert or replace these states, received at this wall-clock time (unix seconds).
    Upsert {
        received_at: f64,
        states: Vec<ObjectState>,
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
            payload.push(1);
            put_f64(&mut payload, *received_at);
            payload.extend_from_slice(&(states.len() as u32).to_le_bytes());
            for s in states {
                put_state(&mut payload, s);
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
        1 => {
            let received_at = r.f64()?;
            let n = r.u32()? as usize;
            let mut states = Vec::with_capacity(n.min(1 << 20));
            for _ in 0..n {
                states.push(r.state()?);
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
            states,
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
    fn damaged_payloads_are_errors_not_panics() {
        let op = Op::Upsert {
            received_at: 0.0,
            states: vec![
                StateInput::new("a", 0.0, &[1.0, 2.0], &[])
                    .validate()
                    .unwrap(),
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
