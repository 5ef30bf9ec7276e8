//! AIS over NMEA 0183: `!AIVDM` / `!AIVDO` sentences, one per line, each with a time.
//!
//! The bit-level decoding is the `ais` crate's; this module adds what a feed needs around
//! it: a timestamp per sentence (an NMEA 4 tag block `\c:<unix time>*hh\`, or a unix time
//! before the sentence or after its checksum), reassembly of multi-part messages that may
//! interleave on two channels, static data (types 5, 19, 24) remembered per MMSI and joined
//! to later position reports (types 1, 2, 3, 18, 19, 27), and a reason for every sentence
//! it skips.

use std::collections::HashMap;

use ais::AisFragments;
use ais::AisParser;
use ais::errors::Error as AisError;
use ais::messages::AisMessage;
use ais::messages::position_report::NavigationStatus;
use ais::messages::static_data_report::MessagePart;
use ais::messages::types::ShipType;
use horizon_core::{GeoStateInput, Hull};

use super::ais_codes::{KNOT, nav_status, ship_kind};
use super::{FeedRead, settle};

/// What static reports said about one vessel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VesselStatic {
    /// Vessel name.
    pub name: Option<String>,
    /// Ship type as a kind (`cargo`, `tug`, ...).
    pub kind: Option<String>,
    /// Dimensions from the antenna.
    pub hull: Option<Hull>,
}

/// Multi-part messages in flight beyond this many are dropped (a receiver that never sends
/// the rest must not grow memory).
const MAX_PENDING: usize = 256;

/// A stateful decoder: keeps partial messages and static data between calls.
#[derive(Default)]
pub struct NmeaDecoder {
    pending: HashMap<(Option<char>, u8), AisParser>,
    statics: HashMap<u32, VesselStatic>,
}

impl NmeaDecoder {
    /// A decoder with nothing remembered.
    pub fn new() -> Self {
        Self::default()
    }

    /// What static data says about `mmsi`, if anything arrived.
    pub fn static_of(&self, mmsi: &str) -> Option<&VesselStatic> {
        self.statics.get(&mmsi.parse().ok()?)
    }

    /// Decodes text, one sentence per line; blank lines are ignored.
    pub fn decode(&mut self, text: &str) -> FeedRead {
        let mut out = FeedRead::default();
        for (k, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            out.records += 1;
            match self.line(line) {
                Ok(Some(s)) => out.states.push(s),
                Ok(None) => out.ignored += 1,
                Err(reason) => out.skip(k + 1, reason),
            }
        }
        out
    }

    /// One line: a state, nothing (a fragment, static data, another message type), or why
    /// it was skipped.
    fn line(&mut self, line: &str) -> Result<Option<GeoStateInput>, String> {
        let (t, sentence) = split_time(line.trim())?;
        let fields: Vec<&str> = sentence.splitn(7, ',').collect();
        let kind = fields[0].get(3..6).unwrap_or("");
        if fields.len() < 7 || !(kind == "VDM" || kind == "VDO") {
            return Err("not an AIS !--VDM/!--VDO sentence".into());
        }
        let total: u8 = fields[1].parse().map_err(|_| "bad fragment count")?;
        let key = (fields[4].chars().next(), fields[3].parse().unwrap_or(0));
        let parsed = if total > 1 {
            if self.pending.len() >= MAX_PENDING && !self.pending.contains_key(&key) {
                self.pending.clear();
            }
            let parser = self.pending.entry(key).or_default();
            let r = parser.parse(sentence.as_bytes(), true);
            if !matches!(r, Ok(AisFragments::Incomplete(_))) {
                self.pending.remove(&key);
            }
            r
        } else {
            AisParser::new().parse(sentence.as_bytes(), true)
        };
        let message = match parsed {
            Ok(AisFragments::Incomplete(_)) => return Ok(None),
            Ok(AisFragments::Complete(s)) => s.message,
            Err(AisError::Checksum { expected, found }) => {
                return Err(format!(
                    "bad checksum: the sentence says {expected:02X}, its characters give {found:02X}"
                ));
            }
            Err(AisError::Nmea { msg }) => {
                return Err(match msg.strip_prefix("Unimplemented type: ") {
                    Some(n) => format!("unsupported AIS message type {n}"),
                    None => format!("undecodable sentence: {msg}"),
                });
            }
        };
        let Some(message) = message else {
            return Ok(None);
        };
        self.message(t, message)
    }

    /// Remembers what a static report says; fields it leaves out keep their old values.
    fn learn(
        &mut self,
        mmsi: u32,
        name: Option<&str>,
        ship_type: Option<ShipType>,
        dims: Option<[u16; 4]>,
    ) {
        let st = self.statics.entry(mmsi).or_default();
        if let Some(n) = name
            .map(|s| s.trim_end_matches('@').trim())
            .filter(|s| !s.is_empty())
        {
            st.name = Some(n.to_string());
        }
        if let Some(k) = ship_type.and_then(|k| ship_kind(k.into())) {
            st.kind = Some(k.to_string());
        }
        if let Some([a, b, c, d]) = dims.filter(|d| d.iter().any(|&x| x > 0)) {
            st.hull = Some(Hull {
                to_bow: a.into(),
                to_stern: b.into(),
                to_port: c.into(),
                to_starboard: d.into(),
            });
        }
    }

    fn message(&mut self, t: f64, m: AisMessage) -> Result<Option<GeoStateInput>, String> {
        let report = match m {
            AisMessage::PositionReport(p) => Report {
                mmsi: p.mmsi,
                lat: p.latitude,
                lon: p.longitude,
                sog: p.speed_over_ground,
                cog: p.course_over_ground,
                heading: p.true_heading,
                status: p.navigation_status.and_then(status_name),
            },
            AisMessage::StandardClassBPositionReport(p) => Report {
                mmsi: p.mmsi,
                lat: p.latitude,
                lon: p.longitude,
                sog: p.speed_over_ground,
                cog: p.course_over_ground,
                heading: p.true_heading,
                status: None,
            },
            AisMessage::ExtendedClassBPositionReport(p) => {
                self.learn(
                    p.mmsi,
                    Some(&p.name),
                    p.type_of_ship_and_cargo,
                    Some([
                        p.dimension_to_bow,
                        p.dimension_to_stern,
                        p.dimension_to_port,
                        p.dimension_to_starboard,
                    ]),
                );
                Report {
                    mmsi: p.mmsi,
                    lat: p.latitude,
                    lon: p.longitude,
                    sog: p.speed_over_ground,
                    cog: p.course_over_ground,
                    heading: p.true_heading,
                    status: None,
                }
            }
            AisMessage::LongRangeAisBroadcastMessage(p) => Report {
                mmsi: p.mmsi,
                lat: p.latitude,
                lon: p.longitude,
                sog: p.speed_over_ground,
                cog: p.course_over_ground,
                heading: None,
                status: p.navigation_status.and_then(status_name),
            },
            AisMessage::StaticAndVoyageRelatedData(s) => {
                let dims = [
                    s.dimension_to_bow,
                    s.dimension_to_stern,
                    s.dimension_to_port,
                    s.dimension_to_starboard,
                ];
                self.learn(s.mmsi, Some(&s.vessel_name), s.ship_type, Some(dims));
                return Ok(None);
            }
            AisMessage::StaticDataReport(s) => {
                match s.message_part {
                    MessagePart::PartA { vessel_name } => {
                        self.learn(s.mmsi, Some(&vessel_name), None, None);
                    }
                    MessagePart::PartB {
                        ship_type,
                        dimension_to_bow,
                        dimension_to_stern,
                        dimension_to_port,
                        dimension_to_starboard,
                        ..
                    } => {
                        let dims = [
                            dimension_to_bow,
                            dimension_to_stern,
                            dimension_to_port,
                            dimension_to_starboard,
                        ];
                        self.learn(s.mmsi, None, ship_type, Some(dims));
                    }
                    MessagePart::Unknown(_) => {}
                }
                return Ok(None);
            }
            // Base stations, aids to navigation, binary messages...: valid, not vessels.
            _ => return Ok(None),
        };
        let known = self.statics.get(&report.mmsi);
        report.state(t, known).map(Some)
    }
}

/// The fields of a position report that make a state.
struct Report {
    mmsi: u32,
    lat: Option<f32>,
    lon: Option<f32>,
    sog: Option<f32>,
    cog: Option<f32>,
    heading: Option<u16>,
    status: Option<&'static str>,
}

impl Report {
    fn state(self, t: f64, known: Option<&VesselStatic>) -> Result<GeoStateInput, String> {
        let (Some(lat), Some(lon)) = (self.lat, self.lon) else {
            return Err(format!("MMSI {}: position not available", self.mmsi));
        };
        // f32 as decoded: print them shortest, so 40.6841 stays 40.6841 and not 40.68410110...
        let exact = |x: f32| x.to_string().parse::<f64>().unwrap_or(x.into());
        let speed = self
            .sog
            .filter(|&k| k < 102.25)
            .map(|k| f64::from(k) * KNOT);
        let heading = self.heading.filter(|&h| h < 360).map(f64::from);
        let course = self
            .cog
            .map(exact)
            .filter(|c| (0.0..360.0).contains(c))
            .or(heading.filter(|_| speed.is_some_and(|v| v > 0.0)));
        let (speed, course) = settle(speed, course)?;
        let known = known.cloned().unwrap_or_default();
        let s = GeoStateInput {
            id: self.mmsi.to_string(),
            t,
            lat: exact(lat),
            lon: exact(lon),
            speed,
            course,
            heading,
            hull: known.hull,
            name: known.name,
            kind: known.kind,
            status: self.status.map(String::from),
            ..Default::default()
        };
        s.validate()
            .map_err(|e| format!("MMSI {}: {e}", self.mmsi))?;
        Ok(s)
    }
}

fn status_name(s: NavigationStatus) -> Option<&'static str> {
    use NavigationStatus::*;
    let code = match s {
        UnderWayUsingEngine => 0,
        AtAnchor => 1,
        NotUnderCommand => 2,
        RestrictedManouverability => 3,
        ConstrainedByDraught => 4,
        Moored => 5,
        Aground => 6,
        EngagedInFishing => 7,
        UnderWaySailing => 8,
        Reserved01 => 11,
        Reserved02 => 12,
        AisSartIsActive => 14,
        _ => return None,
    };
    nav_status(code)
}

/// XOR of the bytes: the NMEA checksum.
fn xor(s: &str) -> u8 {
    s.bytes().fold(0, |a, b| a ^ b)
}

/// Unix seconds, or milliseconds as some receivers write them.
fn unix_time(s: &str) -> Option<f64> {
    let x: f64 = s
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite() && *x >= 0.0)?;
    Some(if x > 1e11 { x / 1000.0 } else { x })
}

/// The sentence's time and the sentence itself.
fn split_time(line: &str) -> Result<(f64, &str), String> {
    if let Some(rest) = line.strip_prefix('\\') {
        let (tag, sentence) = rest
            .split_once('\\')
            .ok_or("tag block without its closing backslash")?;
        let body = match tag.split_once('*') {
            Some((body, sum)) => {
                let want =
                    u8::from_str_radix(sum, 16).map_err(|_| "tag block checksum is not hex")?;
                if xor(body) != want {
                    return Err(format!(
                        "bad tag block checksum: it says {want:02X}, its characters give {:02X}",
                        xor(body)
                    ));
                }
                body
            }
            None => tag,
        };
        let t = body
            .split(',')
            .find_map(|f| f.strip_prefix("c:"))
            .and_then(unix_time)
            .ok_or("tag block has no c: (unix time) field")?;
        return Ok((t, sentence));
    }
    if let Some(bang) = line.find('!') {
        if bang > 0 {
            let t = unix_time(line[..bang].trim_end_matches([',', ';', ' ', '\t']))
                .ok_or("text before the sentence is not a unix time")?;
            return Ok((t, &line[bang..]));
        }
        // A receive time after the checksum: `...*hh,1593475200`.
        if let Some(star) = line.rfind('*')
            && let Some(after) = line.get(star + 3..)
            && let Some(t) = unix_time(after.trim_start_matches([',', ' ', '\t']))
        {
            return Ok((t, &line[..star + 3]));
        }
        return Err(
            "no timestamp: give a tag block with c:, or a unix time before or after the sentence"
                .into(),
        );
    }
    Err("not an AIS sentence (no `!`)".into())
}

#[cfg(test)]
mod test;
