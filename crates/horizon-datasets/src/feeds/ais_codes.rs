//! AIS code tables (ITU-R M.1371): navigation status and ship type, as names a filter can use.

/// One knot in m/s.
pub const KNOT: f64 = 1852.0 / 3600.0;

/// The navigation status name of an AIS code; `None` for 15 ("not defined") and reserved codes.
pub fn nav_status(code: u8) -> Option<&'static str> {
    Some(match code {
        0 => "under_way_using_engine",
        1 => "at_anchor",
        2 => "not_under_command",
        3 => "restricted_manoeuvrability",
        4 => "constrained_by_draught",
        5 => "moored",
        6 => "aground",
        7 => "engaged_in_fishing",
        8 => "under_way_sailing",
        11 => "towing_astern",
        12 => "pushing_ahead_or_towing_alongside",
        14 => "ais_sart",
        _ => return None,
    })
}

/// A short kind for an AIS ship-type code (first digit, and the special 3x/5x codes).
pub fn ship_kind(code: u8) -> Option<&'static str> {
    Some(match code {
        30 => "fishing",
        31 | 32 => "towing",
        33 => "dredging",
        34 => "diving",
        35 => "military",
        36 => "sailing",
        37 => "pleasure_craft",
        40..=49 => "high_speed_craft",
        50 => "pilot",
        51 => "search_and_rescue",
        52 => "tug",
        53 => "port_tender",
        55 => "law_enforcement",
        58 => "medical",
        60..=69 => "passenger",
        70..=79 => "cargo",
        80..=89 => "tanker",
        20..=29 => "wing_in_ground",
        90..=99 => "other",
        _ => return None,
    })
}
