//! The NY Harbor AIS hour end to end: `horizondb replay` into a real server up to 00:30 UTC,
//! then `GET /v1/collisions?horizon=600&margin=50&min_speed=0.5`, checked against an
//! independent brute force: its own CSV parsing, a GeographicLib azimuthal-equidistant
//! frame instead of our ECEF tangent planes, and gaps sampled every half second.

use std::collections::HashMap;

use geographiclib_rs::{DirectGeodesic, Geodesic, InverseGeodesic};
use serde_json::Value;

use crate::util::{Server, get, horizondb, send, stdout};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/datasets/ais/marinecadastre_nyharbor_20200630_1h.csv"
);
/// 2020-06-30T00:30:00Z.
const T: f64 = 1_593_477_000.0;
const H: f64 = 600.0;
const MARGIN: f64 = 50.0;
const MIN_SPEED: f64 = 0.5;
const KNOT: f64 = 1852.0 / 3600.0;
/// Sampling step of the oracle, seconds.
const DT: f64 = 0.5;
/// Model differences (frame, box orientation) stay far below this, metres.
const TOL: f64 = 1.5;

struct Ship {
    id: String,
    t: f64,
    /// Position in the oracle's plane and velocity, metres and m/s.
    p: [f64; 2],
    v: [f64; 2],
    /// Footprint half-extents east/north.
    w: [f64; 2],
    speed: f64,
}

/// The latest report of every ship at or before `T`, placed in an azimuthal-equidistant
/// plane around the harbour (GeographicLib geodesics), read without HorizonDB's code.
fn oracle_ships() -> Vec<Ship> {
    let g = Geodesic::wgs84();
    let (lat0, lon0) = (40.6, -74.0);
    let plane = |lat: f64, lon: f64| -> [f64; 2] {
        let (s, azi, _, _): (f64, f64, f64, f64) = g.inverse(lat0, lon0, lat, lon);
        let (sa, ca) = azi.to_radians().sin_cos();
        [s * sa, s * ca]
    };
    let text = std::fs::read_to_string(FILE).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (ct, clon, clat, cid, csog, ccog, chdg, clen, cwid) = (
        col("BaseDateTime"),
        col("LON"),
        col("LAT"),
        col("MMSI"),
        col("SOG"),
        col("COG"),
        col("Heading"),
        col("Length"),
        col("Width"),
    );
    let num = |s: &str| s.parse::<f64>().ok();
    let mut latest: HashMap<String, Ship> = HashMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let time = f[ct].strip_prefix("2020-06-30T").expect("one day of data");
        let hms: Vec<f64> = time.split(':').map(|x| x.parse().unwrap()).collect();
        let t = 1_593_475_200.0 + hms[0] * 3600.0 + hms[1] * 60.0 + hms[2];
        if t > T {
            continue;
        }
        let sog = num(f[csog])
            .filter(|&k| k < 102.25)
            .map_or(0.0, |k| k * KNOT);
        let cog = num(f[ccog])
            .map(|c| if c < 0.0 { c + 409.6 } else { c })
            .filter(|c| (0.0..360.0).contains(c));
        let heading = num(f[chdg]).filter(|h| (0.0..360.0).contains(h));
        // The data policy HorizonDB documents: no course → heading; a crawl → at rest.
        let course = cog.or(heading.filter(|_| sog > 0.0));
        let (speed, course) = match course {
            Some(c) => (sog, c),
            None if sog <= KNOT => (0.0, 0.0),
            None => continue,
        };
        let (lat, lon) = (num(f[clat]).unwrap(), num(f[clon]).unwrap());
        let p = plane(lat, lon);
        // The direction of travel in the plane: a point 100 m ahead along the course.
        let (la, lo) = g.direct(lat, lon, course, 100.0);
        let ahead = plane(la, lo);
        let v = [
            (ahead[0] - p[0]) / 100.0 * speed,
            (ahead[1] - p[1]) / 100.0 * speed,
        ];
        let w = match num(f[clen]).filter(|&l| l > 0.0) {
            Some(l) => {
                let wid = num(f[cwid]).unwrap_or(0.0);
                let (s, c) = heading.unwrap_or(course).to_radians().sin_cos();
                let (s, c) = (s.abs(), c.abs());
                [s * l / 2.0 + c * wid / 2.0, c * l / 2.0 + s * wid / 2.0]
            }
            None => [0.0, 0.0],
        };
        let id = f[cid].to_string();
        latest.insert(
            id.clone(),
            Ship {
                id,
                t,
                p,
                v,
                w,
                speed,
            },
        );
    }
    latest.into_values().collect()
}

/// Gap between the footprints of two ships at time `s`.
fn gap(a: &Ship, b: &Ship, s: f64) -> f64 {
    let mut d2 = 0.0;
    for j in 0..2 {
        let c = (b.p[j] + b.v[j] * (s - b.t)) - (a.p[j] + a.v[j] * (s - a.t));
        let out = (c.abs() - a.w[j] - b.w[j]).max(0.0);
        d2 += out * out;
    }
    d2.sqrt()
}

#[test]
fn harbor_hour_replayed_to_0030_matches_an_independent_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    let out = horizondb(&[
        "replay",
        FILE,
        "--url",
        &srv.url,
        "--speed",
        "0",
        "--until",
        "2020-06-30T00:30:00",
    ]);
    let said = stdout(&out);
    assert!(said.contains("to 2020-06-30T00:30:00Z"), "{said}");
    let (s, v) = get(&format!(
        "{}/v1/collisions?horizon={H}&margin={MARGIN}&min_speed={MIN_SPEED}",
        srv.url
    ));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["at"], T, "the clock follows the recording");
    let ours: HashMap<(String, String), &Value> = v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let key = (
                p["a"].as_str().unwrap().to_string(),
                p["b"].as_str().unwrap().to_string(),
            );
            (key, p)
        })
        .collect();

    let ships = oracle_ships();
    assert_eq!(
        v["stats"]["objects"],
        ships.len(),
        "the same ships on both sides"
    );
    let steps = (H / DT) as usize;
    let (mut sure_in, mut checked) = (0, 0);
    for (i, a) in ships.iter().enumerate() {
        for b in &ships[i + 1..] {
            if a.speed < MIN_SPEED && b.speed < MIN_SPEED {
                continue;
            }
            let (a, b) = if a.id < b.id { (a, b) } else { (b, a) };
            let key = (a.id.clone(), b.id.clone());
            let vrel = (b.v[0] - a.v[0]).hypot(b.v[1] - a.v[1]);
            let reach = vrel * H + 2.0 * (a.w[0] + a.w[1] + b.w[0] + b.w[1]) + MARGIN + 100.0;
            if gap(a, b, T) > reach {
                assert!(!ours.contains_key(&key), "{key:?} reported but far apart");
                continue;
            }
            checked += 1;
            let samples: Vec<f64> = (0..=steps).map(|k| gap(a, b, T + k as f64 * DT)).collect();
            let g_min = samples.iter().copied().fold(f64::INFINITY, f64::min);
            // Between samples the gap can dip by at most vrel · DT / 2.
            let slack = vrel * DT / 2.0;
            let g_lo = g_min - slack;
            if g_min <= MARGIN - TOL {
                sure_in += 1;
                let p = ours
                    .get(&key)
                    .unwrap_or_else(|| panic!("{key:?} missed: gap {g_min:.2} m"));
                let t_hi = samples.iter().position(|&g| g <= MARGIN - TOL).unwrap();
                let t_lo = samples
                    .iter()
                    .position(|&g| g - slack <= MARGIN + TOL)
                    .unwrap();
                let t = p["t_contact"].as_f64().unwrap() - T;
                assert!(
                    t >= t_lo as f64 * DT - DT && t <= t_hi as f64 * DT,
                    "{key:?}: t_contact +{t:.1} s, oracle between +{:.1} and +{:.1}",
                    t_lo as f64 * DT - DT,
                    t_hi as f64 * DT
                );
                let d = p["min_distance"].as_f64().unwrap();
                assert!(
                    d >= g_lo - TOL && d <= g_min + TOL,
                    "{key:?}: min_distance {d:.2}, oracle {g_lo:.2}..{g_min:.2}"
                );
            } else if g_lo > MARGIN + TOL {
                assert!(
                    !ours.contains_key(&key),
                    "{key:?} reported, oracle gap {g_lo:.2} m"
                );
            }
        }
    }
    assert!(
        sure_in >= 5,
        "only {sure_in} conflicts: the scene tests nothing"
    );
    eprintln!(
        "{} conflicts reported, {sure_in} certain by the oracle, {checked} pairs sampled",
        ours.len()
    );

    // The same answer as a map.
    let (s, gj) = get(&format!(
        "{}/v1/collisions?horizon={H}&margin={MARGIN}&min_speed={MIN_SPEED}&format=geojson",
        srv.url
    ));
    assert_eq!(s, 200);
    assert_eq!(gj["type"], "FeatureCollection");
    let features = gj["features"].as_array().unwrap();
    let count = |kind: &str| {
        features
            .iter()
            .filter(|f| f["properties"]["kind"] == kind)
            .count()
    };
    assert_eq!(count("object"), ships.len());
    assert_eq!(count("track"), ships.len());
    assert_eq!(count("contact"), ours.len());
    let first = &features[0]["geometry"]["coordinates"];
    assert!(
        (-75.0..-73.0).contains(&first[0].as_f64().unwrap()),
        "[lon, lat]: {first}"
    );
}

#[test]
fn ingest_a_whole_csv_and_filters_on_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    let out = horizondb(&["ingest", FILE, "--url", &srv.url, "--batch", "3000"]);
    let said = stdout(&out);
    assert!(
        said.contains("8689 states accepted, 0 records skipped"),
        "{said}"
    );
    let (_, v) = get(&format!("{}/v1/objects/367000140?at=1593478000", srv.url));
    assert_eq!(v["state"]["name"], "SAMUEL I NEWHOUSE", "{v}");
    assert!(v["predicted"]["lat"].is_number(), "{v}");

    // Filters: stale states leave, groups and statuses count.
    let base = format!("{}/v1/collisions?horizon=600&margin=50", srv.url);
    let (_, all) = get(&base);
    let (_, fresh) = get(&format!("{base}&max_age=120"));
    assert!(
        fresh["stats"]["objects_stale"].as_u64().unwrap() > 0,
        "{}",
        fresh["stats"]
    );
    assert!(fresh["total_pairs"].as_u64() <= all["total_pairs"].as_u64());
    for p in fresh["pairs"].as_array().unwrap() {
        assert!(p["age_a"].as_f64().unwrap() <= 120.0 && p["age_b"].as_f64().unwrap() <= 120.0);
    }
    let (_, calm) = get(&format!(
        "{base}&exclude_status=moored,at_anchor&min_speed=0.5"
    ));
    assert!(
        calm["stats"]["pairs_filtered"].as_u64().unwrap() > 0,
        "{}",
        calm["stats"]
    );
    assert_eq!(
        calm["total_pairs"].as_u64().unwrap() + calm["stats"]["pairs_filtered"].as_u64().unwrap(),
        all["total_pairs"].as_u64().unwrap()
    );
    for bad in [
        "min_speed=-1",
        "max_age=x",
        "same_group=maybe",
        "format=kml",
    ] {
        let (s, v) = get(&format!("{base}&{bad}"));
        assert_eq!(s, 400, "{bad}: {v}");
        let name = bad.split('=').next().unwrap();
        assert!(
            v["error"]["message"].as_str().unwrap().contains(name),
            "{v}"
        );
    }
    let (s, v) = send(
        "POST",
        &format!("{}/v1/ingest/csv", srv.url),
        "text/csv",
        "x,y\n1,2\n",
    );
    assert_eq!(s, 422, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unrecognised CSV header")
    );
}

#[test]
fn ais_sentences_over_http_with_static_data_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    let tag = |t: u64| {
        let body = format!("s:test,c:{t}");
        let sum = body.bytes().fold(0u8, |a, b| a ^ b);
        format!("\\{body}*{sum:02X}\\")
    };
    let lines = [
        // gpsd's type 1 example: MMSI 477553000, moored.
        format!("{}!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C", tag(1_593_475_200)),
        // A real two-part type 5 (static data), receive time after the checksum.
        "!AIVDM,2,1,1,B,53`soB8000010KSOW<0P4eDp4l6000000000000U0p<24t@P05H3S833CDP00000,0*78,1593475201".into(),
        "!AIVDM,2,2,1,B,0000000,2*26,1593475201".into(),
        // The same type 1 with a damaged checksum, and one without any time.
        format!("{}!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5D", tag(1_593_475_202)),
        "!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C".into(),
    ];
    let file = dir.path().join("feed.nmea");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = horizondb(&[
        "ingest",
        file.to_str().unwrap(),
        "--url",
        &srv.url,
        "--batch",
        "2",
    ]);
    let said = stdout(&out);
    assert!(
        said.contains("1 states accepted, 2 records skipped"),
        "{said}"
    );
    assert!(said.contains("line 4: bad checksum"), "{said}");
    assert!(said.contains("line 5: no timestamp"), "{said}");
    let (s, v) = get(&format!("{}/v1/objects/477553000", srv.url));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["state"]["status"], "moored");
    assert_eq!(v["state"]["t"], 1_593_475_200.0);
    let (s, v) = send(
        "POST",
        &format!("{}/v1/ingest/nmea", srv.url),
        "text/plain",
        "1593475300 !AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C\nnonsense\n",
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["accepted"].clone(), v["skipped"].clone()),
        (1.into(), 1.into()),
        "{v}"
    );
    assert_eq!(v["clock"], 1_593_475_300.0);
}

#[test]
fn offline_conflicts_count_alarm_episodes_and_filters_cut_them() {
    let run = |extra: &[&str]| -> Value {
        let mut args = vec![
            "conflicts",
            FILE,
            "--horizon",
            "600",
            "--margin",
            "50",
            "--step",
            "10",
            "--until",
            "2020-06-30T00:15:00",
            "--json",
        ];
        args.extend_from_slice(extra);
        crate::util::json(&horizondb(&args))
    };
    let all = run(&[]);
    let calm = run(&["--min-speed", "0.5", "--exclude-status", "moored,at_anchor"]);
    let n = |v: &Value, k: &str| {
        v[k].as_u64()
            .unwrap_or_else(|| v[k].as_array().unwrap().len() as u64)
    };
    assert!(n(&all, "episodes") > 0);
    assert!(
        n(&calm, "predictions") * 3 < n(&all, "predictions"),
        "{} vs {}",
        calm["predictions"],
        all["predictions"]
    );
    let e = &calm["episodes"][0];
    assert!(e["first_predicted"].as_f64().unwrap() <= e["last_predicted"].as_f64().unwrap());
    assert!(e["steps"].as_u64().unwrap() >= 1);
    let out = horizondb(&["conflicts", FILE, "--horizon", "60", "--box", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--box takes 2 or 3"));
}

#[test]
fn replay_keeps_pace_with_the_recording() {
    let dir = tempfile::tempdir().unwrap();
    let srv = Server::start(&dir.path().join("db"), &[]);
    // Two recorded minutes at 120× take about a second, not zero and not two minutes.
    let t0 = std::time::Instant::now();
    let out = horizondb(&[
        "replay",
        FILE,
        "--url",
        &srv.url,
        "--speed",
        "120",
        "--until",
        "2020-06-30T00:02:00",
    ]);
    let said = stdout(&out);
    let wall = t0.elapsed().as_secs_f64();
    assert!(said.contains("to 2020-06-30T00:01:59Z"), "{said}");
    // Pacing, not speed: the last report is due 119 s / 120 after the start.
    assert!(wall >= 0.95, "replayed 119 s at 120× in {wall} s");
    let (_, v) = get(&format!("{}/healthz", srv.url));
    assert_eq!(
        v["clock"], 1_593_475_319.0,
        "the clock follows the recording: {v}"
    );
}
