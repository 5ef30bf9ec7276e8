//! CSV tracks: the MarineCadastre AIS export and the generic
//! `id,t_unix_seconds,lat,lon,alt_m,speed_mps,course_deg` layout (an empty field: no value).

use std::str::FromStr;

use horizon_core::{GeoStateInput, Hull};

use super::ais_codes::{KNOT, nav_status, ship_kind};
use super::time::parse_utc;
use super::{FeedError, FeedRead, settle};

/// Which CSV layout a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvLayout {
    /// MarineCadastre.gov AIS: `BaseDateTime,LON,LAT,MMSI,SOG,COG,Heading,VesselName,...`,
    /// SOG in knots, Length/Width in metres, Status as an AIS navigation-status code.
    MarineCadastre,
    /// `id,t_unix_seconds,lat,lon,alt_m,speed_mps,course_deg`.
    Generic,
}

impl FromStr for CsvLayout {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "marinecadastre" => Ok(CsvLayout::MarineCadastre),
            "generic" => Ok(CsvLayout::Generic),
            _ => Err(format!(
                "unknown CSV layout `{s}`: expected marinecadastre or generic"
            )),
        }
    }
}

impl CsvLayout {
    fn name(self) -> &'static str {
        match self {
            CsvLayout::MarineCadastre => "marinecadastre",
            CsvLayout::Generic => "generic",
        }
    }

    fn detect(header: &csv::StringRecord) -> Option<CsvLayout> {
        let has = |c: &str| header.iter().any(|h| h.trim() == c);
        if has("BaseDateTime") && has("MMSI") {
            Some(CsvLayout::MarineCadastre)
        } else if has("id") && has("t_unix_seconds") {
            Some(CsvLayout::Generic)
        } else {
            None
        }
    }
}

/// Column positions by name.
struct Columns<'h>(&'h csv::StringRecord, &'static str);

impl Columns<'_> {
    fn find(&self, name: &'static str) -> Result<usize, FeedError> {
        self.0
            .iter()
            .position(|h| h.trim() == name)
            .ok_or(FeedError::MissingColumn(name, self.1))
    }
    fn optional(&self, name: &'static str) -> Option<usize> {
        self.0.iter().position(|h| h.trim() == name)
    }
}

/// A field as a number: `Ok(None)` when empty, an error naming the column when not a number.
fn number(row: &csv::StringRecord, col: Option<usize>, name: &str) -> Result<Option<f64>, String> {
    let Some(raw) = col.and_then(|c| row.get(c)).map(str::trim) else {
        return Ok(None);
    };
    if raw.is_empty() {
        return Ok(None);
    }
    raw.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(Some)
        .ok_or_else(|| format!("`{name}` is not a number: `{raw}`"))
}

fn required(row: &csv::StringRecord, col: usize, name: &str) -> Result<f64, String> {
    number(row, Some(col), name)?.ok_or_else(|| format!("`{name}` is empty"))
}

fn text(row: &csv::StringRecord, col: Option<usize>) -> Option<String> {
    let s = col.and_then(|c| row.get(c))?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// Turns one row into a state, or says why not.
type RowParser = dyn Fn(&csv::StringRecord) -> Result<GeoStateInput, String>;

/// Reads CSV text; `layout` `None` detects it from the header. Rows that are not valid
/// states are skipped with a reason.
pub fn read_csv(text: &str, layout: Option<CsvLayout>) -> Result<FeedRead, FeedError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| FeedError::Malformed(e.to_string()))?
        .clone();
    let layout = match layout.or_else(|| CsvLayout::detect(&header)) {
        Some(l) => l,
        None => {
            let h: Vec<&str> = header.iter().collect();
            return Err(FeedError::UnknownHeader(h.join(",")));
        }
    };
    let cols = Columns(&header, layout.name());
    let parse: Box<RowParser> = match layout {
        CsvLayout::MarineCadastre => Box::new(marine_cadastre(&cols)?),
        CsvLayout::Generic => Box::new(generic(&cols)?),
    };
    let mut out = FeedRead::default();
    let mut row = csv::StringRecord::new();
    loop {
        let line = reader.position().line() as usize;
        match reader.read_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                out.records += 1;
                out.skip(line, e);
                continue;
            }
        }
        out.records += 1;
        match parse(&row).and_then(|s| s.validate().map(|_| s).map_err(|e| e.to_string())) {
            Ok(s) => out.states.push(s),
            Err(reason) => out.skip(line, reason),
        }
    }
    Ok(out)
}

fn marine_cadastre(
    c: &Columns,
) -> Result<impl Fn(&csv::StringRecord) -> Result<GeoStateInput, String> + use<>, FeedError> {
    let (time, lon, lat, mmsi) = (
        c.find("BaseDateTime")?,
        c.find("LON")?,
        c.find("LAT")?,
        c.find("MMSI")?,
    );
    let (sog, cog, heading) = (c.optional("SOG"), c.optional("COG"), c.optional("Heading"));
    let (name, vtype, status) = (
        c.optional("VesselName"),
        c.optional("VesselType"),
        c.optional("Status"),
    );
    let (length, width) = (c.optional("Length"), c.optional("Width"));
    Ok(move |row: &csv::StringRecord| {
        let id = text(row, Some(mmsi)).ok_or("`MMSI` is empty")?;
        let raw_t = row.get(time).unwrap_or("");
        let t = parse_utc(raw_t)
            .ok_or_else(|| format!("`BaseDateTime` is not a UTC time: `{raw_t}`"))?;
        // 102.3 kn means "not available".
        let speed = number(row, sog, "SOG")?
            .filter(|&k| k < 102.25)
            .map(|k| k * KNOT);
        // A negative COG is a stored signed value (COG + 409.6); −49.6 and 360 mean "not
        // available" (see the data's README).
        let course = number(row, cog, "COG")?
            .map(|c| if c < 0.0 { c + 409.6 } else { c })
            .filter(|c| (0.0..360.0).contains(c));
        let heading = number(row, heading, "Heading")?.filter(|h| (0.0..360.0).contains(h));
        let code = |col, name| -> Result<Option<u8>, String> {
            Ok(number(row, col, name)?.and_then(|x| (0.0..=255.0).contains(&x).then_some(x as u8)))
        };
        let hull = match (number(row, length, "Length")?, number(row, width, "Width")?) {
            // The export gives the size but not the antenna's place on board: centred.
            (Some(l), w) if l > 0.0 => Some(Hull {
                to_bow: l / 2.0,
                to_stern: l / 2.0,
                to_port: w.unwrap_or(0.0) / 2.0,
                to_starboard: w.unwrap_or(0.0) / 2.0,
            }),
            _ => None,
        };
        let moving = speed.is_some_and(|v| v > 0.0);
        // Without a course a moving ship's direction is unknown: fall back on heading.
        let (speed, course) = settle(speed, course.or(heading.filter(|_| moving)))?;
        Ok(GeoStateInput {
            id,
            t,
            lat: required(row, lat, "LAT")?,
            lon: required(row, lon, "LON")?,
            course,
            speed,
            heading,
            hull,
            name: text(row, name),
            kind: code(vtype, "VesselType")?
                .and_then(ship_kind)
                .map(String::from),
            status: code(status, "Status")?
                .and_then(nav_status)
                .map(String::from),
            ..Default::default()
        })
    })
}

fn generic(
    c: &Columns,
) -> Result<impl Fn(&csv::StringRecord) -> Result<GeoStateInput, String> + use<>, FeedError> {
    let (id, t, lat, lon) = (
        c.find("id")?,
        c.find("t_unix_seconds")?,
        c.find("lat")?,
        c.find("lon")?,
    );
    let (alt, speed, course) = (
        c.optional("alt_m"),
        c.optional("speed_mps"),
        c.optional("course_deg"),
    );
    Ok(move |row: &csv::StringRecord| {
        let (speed, course) = settle(
            number(row, speed, "speed_mps")?,
            number(row, course, "course_deg")?.map(|c| if c == 360.0 { 0.0 } else { c }),
        )?;
        Ok(GeoStateInput {
            id: text(row, Some(id)).ok_or("`id` is empty")?,
            t: required(row, t, "t_unix_seconds")?,
            lat: required(row, lat, "lat")?,
            lon: required(row, lon, "lon")?,
            alt: number(row, alt, "alt_m")?,
            speed,
            course,
            ..Default::default()
        })
    })
}

#[cfg(test)]
mod test {
    use super::*;

    const MC: &str = "BaseDateTime,LON,LAT,MMSI,SOG,COG,Heading,VesselName,IMO,CallSign,VesselType,Status,Length,Width,Draft,Cargo,TranscieverClass,ETA
2020-06-30T00:00:00,-74.07157,40.64409,367000140,0.0,-60.6,246.0,SAMUEL I NEWHOUSE,IMO7702774,WYR3371,60.0,0.0,94.0,21.0,,69.0,B,2020-06-30T12:01:00
2020-06-30T00:00:00,-74.02433,40.54291,366999618,19.0,-61.8,349.0,CG SHRIKE,,NPBG,90.0,0.0,26.0,5.0,,,B,2020-06-30T19:40:00
2020-06-30T00:01:00,-73.97656,40.70324,367776270,3.0,-49.6,511.0,H200,,WDJ4295,60.0,5.0,,,,,A,
2020-06-30T00:02:00,-73.9,91.5,367776271,0.0,0.0,511.0,BAD LAT,,,,,,,,,A,
not a time,-73.9,40.5,367776272,0.0,0.0,511.0,BAD TIME,,,,,,,,,A,
";

    #[test]
    fn marine_cadastre_rows() {
        let r = read_csv(MC, None).unwrap();
        assert_eq!(
            (r.records, r.states.len(), r.skipped),
            (5, 2, 3),
            "{:?}",
            r.reasons
        );
        let s = &r.states[0];
        assert_eq!((s.id.as_str(), s.t), ("367000140", 1_593_475_200.0));
        assert!((s.course.unwrap() - 349.0).abs() < 1e-9, "−60.6 + 409.6");
        assert_eq!(s.speed, Some(0.0));
        assert_eq!(s.name.as_deref(), Some("SAMUEL I NEWHOUSE"));
        assert_eq!(s.kind.as_deref(), Some("passenger"));
        assert_eq!(s.status.as_deref(), Some("under_way_using_engine"));
        assert_eq!(s.hull.unwrap().to_bow, 47.0);
        assert_eq!(s.hull.unwrap().to_port, 10.5);
        assert!((r.states[1].speed.unwrap() - 19.0 * KNOT).abs() < 1e-12);
        // Moving with neither course nor heading: skipped with a reason.
        assert!(
            r.reasons[0].starts_with("line 4: moving at 1.54 m/s with no course"),
            "{:?}",
            r.reasons
        );
        assert!(r.reasons[1].contains("`lat`"), "{:?}", r.reasons);
        assert!(r.reasons[2].contains("BaseDateTime"), "{:?}", r.reasons);
    }

    #[test]
    fn generic_rows_and_bad_headers() {
        let text = "id,t_unix_seconds,lat,lon,alt_m,speed_mps,course_deg\n\
                    a,10,48.3,1.4,6172.2,198.06,16.27\n\
                    b,11,48.9,2.3,,0,\n\
                    c,x,48.9,2.3,,0,\n";
        let r = read_csv(text, None).unwrap();
        assert_eq!((r.states.len(), r.skipped), (2, 1));
        assert_eq!(r.states[0].alt, Some(6172.2));
        assert_eq!(r.states[1].alt, None);
        assert!(r.reasons[0].contains("t_unix_seconds"), "{:?}", r.reasons);
        assert!(matches!(
            read_csv("x,y\n1,2\n", None),
            Err(FeedError::UnknownHeader(_))
        ));
        assert!(matches!(
            read_csv("id,t_unix_seconds\n", Some(CsvLayout::Generic)),
            Err(FeedError::MissingColumn("lat", "generic"))
        ));
    }

    #[test]
    fn the_shipped_harbor_hour_reads_whole() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../datasets/ais/marinecadastre_nyharbor_20200630_1h.csv"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let r = read_csv(&text, Some(CsvLayout::MarineCadastre)).unwrap();
        assert_eq!(r.records, 8689);
        assert!(r.skipped < 50, "{} skipped: {:?}", r.skipped, r.reasons);
        eprintln!(
            "{} of {} rows skipped: {:?}",
            r.skipped, r.records, r.reasons
        );
    }
}
