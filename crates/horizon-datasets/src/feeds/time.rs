//! UTC timestamps as written in AIS exports: `2020-06-30T00:00:00` (a `Z`, a space instead of
//! the `T`, and fractional seconds are accepted).

/// Unix seconds of an ISO-8601 UTC date-time, or `None` if it is not one.
pub fn parse_utc(s: &str) -> Option<f64> {
    let s = s.trim().trim_end_matches('Z');
    let (date, time) = s.split_once(['T', ' '])?;
    let mut d = date.splitn(3, '-');
    let (y, m, day): (i64, i64, i64) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    let mut t = time.splitn(3, ':');
    let (hh, mm): (i64, i64) = (t.next()?.parse().ok()?, t.next()?.parse().ok()?);
    let ss: f64 = t.next().unwrap_or("0").parse().ok()?;
    let days_in_month = [
        31,
        28 + i64::from(leap(y)),
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m)
        || !(1..=days_in_month[(m - 1) as usize]).contains(&day)
        || !(0..24).contains(&hh)
        || !(0..60).contains(&mm)
        || !(0.0..61.0).contains(&ss)
    {
        return None;
    }
    Some((days_from_civil(y, m, day) * 86_400 + hh * 3600 + mm * 60) as f64 + ss)
}

/// `YYYY-MM-DDTHH:MM:SSZ` of unix seconds (whole seconds, rounded down).
pub fn format_utc(t: f64) -> String {
    let secs = t.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Inverse of `days_from_civil` (H. Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod test {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(parse_utc("1970-01-01T00:00:00"), Some(0.0));
        assert_eq!(parse_utc("2020-06-30T00:00:00"), Some(1_593_475_200.0));
        assert_eq!(parse_utc("2021-10-07 12:00:01Z"), Some(1_633_608_001.0));
        assert_eq!(parse_utc("2000-02-29T23:59:59.5"), Some(951_868_799.5));
        assert_eq!(parse_utc("1969-12-31T23:59:59"), Some(-1.0));
        for t in [0.0, -1.0, 951_868_799.5, 1_593_475_200.0, 4_102_444_800.0] {
            assert_eq!(parse_utc(&format_utc(t)), Some(t.floor()), "{t}");
        }
        assert_eq!(format_utc(1_593_477_000.0), "2020-06-30T00:30:00Z");
        for bad in [
            "",
            "2020-06-30",
            "2020-13-01T00:00:00",
            "2019-02-29T00:00:00",
            "2020-06-30T24:00:00",
            "x",
        ] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }
}
