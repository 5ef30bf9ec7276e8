//! Decoding real sentences (from the `ais` crate's test corpus and gpsd's AIVDM guide),
//! reassembly, checksums, timestamps and skipped sentences.

use super::*;

/// Frames a payload as a sentence with a correct checksum.
fn sentence(total: u8, part: u8, seq: &str, channel: &str, payload: &str, fill: u8) -> String {
    let body = format!("AIVDM,{total},{part},{seq},{channel},{payload},{fill}");
    format!("!{body}*{:02X}", xor(&body))
}

/// Armours bit fields into a payload: the inverse of decoding, to build reports with
/// chosen values (a type 1 for a vessel whose real type 5 we have).
fn armour(fields: &[(u64, u32)]) -> String {
    let mut bits = Vec::new();
    for &(value, width) in fields {
        for k in (0..width).rev() {
            bits.push((value >> k) & 1);
        }
    }
    while bits.len() % 6 != 0 {
        bits.push(0);
    }
    bits.chunks(6)
        .map(|c| {
            let v = c.iter().fold(0u8, |a, &b| (a << 1) | b as u8);
            char::from(if v < 40 { v + 48 } else { v + 56 })
        })
        .collect()
}

fn type1(
    mmsi: u32,
    status: u64,
    sog_kn: f64,
    lon: f64,
    lat: f64,
    cog: f64,
    heading: u64,
) -> String {
    let signed = |x: f64, w: u32| ((x.round() as i64) as u64) & ((1 << w) - 1);
    armour(&[
        (1, 6),
        (0, 2),
        (mmsi.into(), 30),
        (status, 4),
        (128, 8),
        ((sog_kn * 10.0).round() as u64, 10),
        (1, 1),
        (signed(lon * 600_000.0, 28), 28),
        (signed(lat * 600_000.0, 27), 27),
        ((cog * 10.0).round() as u64, 12),
        (heading, 9),
        (30, 6),
        (0, 2),
        (0, 3),
        (0, 1),
        (0, 19),
    ])
}

fn one(line: &str) -> FeedRead {
    NmeaDecoder::new().decode(line)
}

#[test]
fn position_reports_of_every_kind() {
    let t = "\\s:rcv,c:1593475200*";
    let tag = |s: &str| {
        let body = &t[1..t.len() - 1];
        format!("\\{body}*{:02X}\\{s}", xor(body))
    };
    // Real payloads, types 1, 3, 18, 19 and 27 (values from the ais crate's own tests).
    let r = one(&tag(&sentence(
        1,
        1,
        "",
        "B",
        "13u?etPv2;0n:dDPwUM1U1Cb069D",
        0,
    )));
    assert_eq!(r.states.len(), 1, "{:?}", r.reasons);
    let s = &r.states[0];
    assert_eq!((s.id.as_str(), s.t), ("265547250", 1_593_475_200.0));
    assert!((s.speed.unwrap() - 13.9 * KNOT).abs() < 1e-5);
    assert!((s.course.unwrap() - 40.4).abs() < 1e-9, "{:?}", s.course);
    assert_eq!(s.heading, Some(41.0));
    assert_eq!(s.status.as_deref(), Some("under_way_using_engine"));

    let r = one(&tag(&sentence(
        1,
        1,
        "",
        "A",
        "38Id705000rRVJhE7cl9n;160000",
        0,
    )));
    assert_eq!(r.states[0].id, "563808000");
    let r = one(&tag(&sentence(
        1,
        1,
        "",
        "A",
        "B6:hQDh0029Pt<4TAS003h6TSP00",
        0,
    )));
    assert_eq!(
        (r.states[0].id.as_str(), r.states[0].speed),
        ("413933907", Some(0.0))
    );
    assert_eq!(r.states[0].status, None, "class B has no navigation status");

    // Type 19 carries static data with the position.
    let r = one(&tag(&sentence(
        1,
        1,
        "",
        "A",
        "C6:ijoP00:9NNF4TEspILDN0Vc0jNc1WWV0000000000S2<6R20P",
        0,
    )));
    let s = &r.states[0];
    assert_eq!(s.name.as_deref(), Some("SU YOU 333"));
    let h = s.hull.unwrap();
    assert_eq!(
        (h.to_bow, h.to_stern, h.to_port, h.to_starboard),
        (35.0, 13.0, 4.0, 4.0)
    );

    let r = one(&tag(&sentence(
        1,
        1,
        "",
        "A",
        "KC5E2b@U19PFdLbMuc5=ROv62<7m",
        0,
    )));
    let s = &r.states[0];
    assert_eq!(s.id, "206914217");
    assert!((s.speed.unwrap() - 57.0 * KNOT).abs() < 1e-9);
    assert_eq!(s.course, Some(167.0));
}

#[test]
fn gpsd_guide_sentences() {
    // The type 1 example of gpsd's AIVDM/AIVDO guide: MMSI 477553000, moored at
    // 47.582833 N 122.345832 W, course 51, heading 181.
    let r = one("1593475200 !AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C");
    assert_eq!(r.skipped, 0, "{:?}", r.reasons);
    let s = &r.states[0];
    assert_eq!(s.id, "477553000");
    assert_eq!(s.status.as_deref(), Some("moored"));
    assert!(
        (s.lat - 47.582833).abs() < 1e-5 && (s.lon + 122.345832).abs() < 1e-5,
        "{s:?}"
    );
    assert_eq!((s.course, s.heading), (Some(51.0), Some(181.0)));
}

#[test]
fn multi_part_static_data_joins_later_reports() {
    // Real two-part type 5 (MMSI 244250440, a pleasure craft), interleaved with a fragment
    // on the other channel and split across two calls.
    let p1 = "!AIVDM,2,1,1,B,53`soB8000010KSOW<0P4eDp4l6000000000000U0p<24t@P05H3S833CDP00000,0*78";
    let p2 = "!AIVDM,2,2,1,B,0000000,2*26";
    let other = sentence(2, 1, "1", "A", "53`soB8000010KSOW<0P4eDp4l60", 0);
    let mut d = NmeaDecoder::new();
    let r = d.decode(&format!("1593475200 {p1}\n1593475200 {other}\n"));
    assert_eq!(
        (r.records, r.ignored, r.skipped),
        (2, 2, 0),
        "{:?}",
        r.reasons
    );
    let r = d.decode(&format!("1593475201 {p2}\n"));
    assert_eq!((r.ignored, r.skipped), (1, 0), "{:?}", r.reasons);
    let st = d.static_of("244250440").expect("type 5 decoded").clone();
    assert_eq!(st.kind.as_deref(), Some("pleasure_craft"));
    // A later position report of that vessel carries its name, kind and hull.
    let pos = sentence(
        1,
        1,
        "",
        "A",
        &type1(244250440, 0, 6.0, -74.05, 40.6, 90.0, 91),
        0,
    );
    let r = d.decode(&format!("{pos},1593475260\n"));
    let s = &r.states[0];
    assert_eq!(s.t, 1_593_475_260.0);
    assert_eq!(s.kind.as_deref(), Some("pleasure_craft"));
    assert_eq!(s.hull, st.hull);
    assert!((s.lat - 40.6).abs() < 1e-5 && (s.lon + 74.05).abs() < 1e-5);

    // Type 24 parts A and B (real) make a static record too.
    let r = d.decode(&format!(
        "1593475300 {}\n1593475300 {}\n",
        sentence(1, 1, "", "A", "H6:lEgQL4r1<QDr0P4pN3KSKP00", 0),
        sentence(1, 1, "", "A", "H3mr@L4NC=D62?P<7nmpl00@8220", 0)
    ));
    assert_eq!(r.ignored, 2, "{:?}", r.reasons);
    assert_eq!(
        d.static_of("413996478").unwrap().name.as_deref(),
        Some("WAN SHUN HANG 6868")
    );
    assert_eq!(
        d.static_of("257855600").unwrap().hull.unwrap().to_stern,
        8.0
    );
}

#[test]
fn bad_sentences_are_counted_with_reasons() {
    let good = sentence(1, 1, "", "B", "13u?etPv2;0n:dDPwUM1U1Cb069D", 0);
    let bad_sum = format!("{}00", &good[..good.len() - 2]);
    let unknown = sentence(
        1,
        1,
        "",
        "A",
        &armour(&[(25, 6), (0, 2), (1234567, 30), (0, 60), (0, 60), (0, 10)]),
        0,
    );
    let base_station = "!AIVDM,1,1,,A,403OtVAv6s5l1o?I``E`4I?02<34,0*21";
    let text = [
        format!("1593475200 {good}"),
        format!("1593475200 {bad_sum}"),
        good.clone(),
        format!("1593475200 {unknown}"),
        format!("1593475200 {base_station}"),
        "1593475200 $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47".into(),
        "\\c:1593475200*00\\".to_string() + &good,
        "garbage".into(),
        String::new(),
        format!("1593475200 {}", sentence(2, 2, "7", "A", "0000", 2)),
    ]
    .join("\n");
    let r = NmeaDecoder::new().decode(&text);
    assert_eq!(r.records, 9);
    assert_eq!(r.states.len(), 1);
    assert_eq!(r.ignored, 1, "the base station");
    assert_eq!(r.skipped, 7, "{:#?}", r.reasons);
    let reason = |line: usize| {
        r.reasons
            .iter()
            .find(|x| x.starts_with(&format!("line {line}:")))
            .unwrap_or_else(|| panic!("no reason for line {line}: {:?}", r.reasons))
    };
    assert!(reason(2).contains("bad checksum"));
    assert!(reason(3).contains("no timestamp"));
    assert!(reason(4).contains("unsupported AIS message type 25"));
    assert!(
        reason(6).contains("not an AIS sentence") || reason(6).contains("no `!`"),
        "{}",
        reason(6)
    );
    assert!(reason(7).contains("bad tag block checksum"));
    assert!(reason(8).contains("not an AIS sentence"));
    assert!(
        reason(10).contains("undecodable") || reason(10).contains("sequence"),
        "{}",
        reason(10)
    );
}
