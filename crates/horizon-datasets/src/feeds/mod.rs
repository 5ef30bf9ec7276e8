//! Real feeds: AIS (MarineCadastre CSV) and generic CSV tracks, turned into geographic
//! states. A bad row is skipped and counted with its reason, never a failure of the batch.

mod ais_codes;
mod csv;
mod nmea;
mod time;

pub use ais_codes::{KNOT, nav_status, ship_kind};
pub use csv::{CsvLayout, read_csv};
pub use nmea::{NmeaDecoder, VesselStatic};
pub use time::{format_utc, parse_utc};

use horizon_core::GeoStateInput;
use thiserror::Error;

/// How many skip reasons a read keeps (the count covers all of them).
pub const MAX_REASONS: usize = 20;

/// What a feed read produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeedRead {
    /// The states, in input order (reports of one object at several times included).
    pub states: Vec<GeoStateInput>,
    /// Input records seen (rows or sentences).
    pub records: usize,
    /// Records skipped.
    pub skipped: usize,
    /// Valid records that carry no state: a fragment of a longer message, static data,
    /// a base station or an aid to navigation.
    pub ignored: usize,
    /// The first [`MAX_REASONS`] skip reasons, each naming its line.
    pub reasons: Vec<String>,
}

impl FeedRead {
    /// Counts a skipped record and keeps its reason if there is room.
    pub fn skip(&mut self, line: usize, reason: impl std::fmt::Display) {
        self.skipped += 1;
        if self.reasons.len() < MAX_REASONS {
            self.reasons.push(format!("line {line}: {reason}"));
        }
    }
}

/// Fastest a report without a course may move and still be taken as drifting in place.
const DRIFT: f64 = KNOT;

/// A report without a course: a crawl (GPS jitter at a mooring) is taken as at rest; faster,
/// the direction is unknown and the record is skipped.
pub(crate) fn settle(
    speed: Option<f64>,
    course: Option<f64>,
) -> Result<(Option<f64>, Option<f64>), String> {
    match (speed, course) {
        (Some(v), None) if v > DRIFT => Err(format!(
            "moving at {v:.2} m/s with no course: direction unknown"
        )),
        (Some(v), None) if v > 0.0 => Ok((Some(0.0), None)),
        other => Ok(other),
    }
}

/// A feed that cannot be read at all.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum FeedError {
    /// The header matches no known layout.
    #[error(
        "unrecognised CSV header `{0}`: expected the MarineCadastre AIS layout \
             (BaseDateTime,LON,LAT,MMSI,SOG,COG,...) or id,t_unix_seconds,lat,lon,alt_m,speed_mps,course_deg"
    )]
    UnknownHeader(String),
    /// The header lacks a column the layout needs.
    #[error("CSV header lacks column `{0}` required by the {1} layout")]
    MissingColumn(&'static str, &'static str),
    /// The text is not CSV.
    #[error("not readable as CSV: {0}")]
    Malformed(String),
}
