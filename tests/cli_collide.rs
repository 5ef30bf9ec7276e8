use serde_json::Value;

use crate::util::{horizondb, horizondb_stdin, json, stdout};

fn scene_file(dir: &tempfile::TempDir, args: &[&str]) -> String {
    let path = dir.path().join("scene.ndjson");
    let p = path.to_str().unwrap().to_string();
    let mut all = vec!["gen", "-o", &p];
    all.extend_from_slice(args);
    assert!(horizondb(&all).status.success());
    p
}

fn pairs_of(v: &Value) -> &Vec<Value> {
    v["pairs"].as_array().unwrap()
}

#[test]
fn grid_rtree_and_brute_agree_on_paper_scenes() {
    let dir = tempfile::tempdir().unwrap();
    // Dense enough for many contacts: the paper's scene squeezed by clustering, with
    // acceleration and a margin. (Large enough to exercise the parallel radix sort.)
    for (args, horizon, margin) in [
        (
            vec![
                "--n",
                "6000",
                "--distribution",
                "zipf",
                "--motion",
                "nonlinear",
                "--seed",
                "3",
            ],
            "5",
            "2",
        ),
        (
            vec![
                "--n",
                "6000",
                "--distribution",
                "city",
                "--motion",
                "nonlinear",
                "--vmax",
                "5",
            ],
            "4",
            "0",
        ),
        (
            vec!["--n", "6000", "--distribution", "uniform", "--seed", "5"],
            "3",
            "0",
        ),
    ] {
        let file = scene_file(&dir, &args);
        let run = |alg: &str| {
            json(&horizondb(&[
                "collide",
                "-i",
                &file,
                "--horizon",
                horizon,
                "--margin",
                margin,
                "--algorithm",
                alg,
            ]))
        };
        let (g, r, b) = (run("grid"), run("rtree"), run("brute"));
        assert_eq!(pairs_of(&g), pairs_of(&b), "grid vs brute on {args:?}");
        assert_eq!(pairs_of(&r), pairs_of(&b), "rtree vs brute on {args:?}");
        assert!(
            !pairs_of(&b).is_empty() || args.contains(&"uniform"),
            "{args:?} found nothing"
        );
        assert_eq!(g["algorithm"], "grid");
        assert_eq!(g["stats"]["objects"], 6000);
        assert_eq!(
            g["stats"]["pairs_found"].as_u64().unwrap() as usize,
            pairs_of(&b).len()
        );
        assert!(g["stats"]["query_seconds"].as_f64().unwrap() > 0.0);
        assert!(g["stats"]["cell_size"].is_array() && r["stats"]["cell_size"].is_null());
    }
}

#[test]
fn answer_shape_order_and_default_time() {
    // Two head-on pairs; the latest t in the file (10) is the default query time.
    let input = r#"{"id":"b","t":10,"p":[10,0],"v":[-1,0],"shape":{"radius":1}}
{"id":"a","t":10,"p":[0,0],"v":[1,0],"shape":{"radius":1}}
{"id":"d","t":9,"p":[0,50],"v":[2,0],"shape":{"box":[1,1]}}
{"id":"c","t":10,"p":[10,50],"v":[-2,0],"shape":{"box":[1,1]}}
{"id":"far","t":5,"p":[1000,1000],"v":[0,0]}
"#;
    let v = json(&horizondb_stdin(
        &["collide", "-i", "-", "--horizon", "10"],
        input,
    ));
    assert_eq!(v["at"], 10.0);
    assert_eq!(v["horizon"], 10.0);
    assert_eq!(v["margin"], 0.0);
    let pairs = pairs_of(&v);
    assert_eq!(pairs.len(), 2);
    // d was reported at t = 9: at 10 it is at x = 2, 8 from c, closing at 4/s, boxes touch
    // when the gap of 6 is closed: t = 11.5. a–b close 8 at 2/s: t = 14.
    assert_eq!(
        (pairs[0]["a"].as_str(), pairs[0]["b"].as_str()),
        (Some("c"), Some("d"))
    );
    assert_eq!(pairs[0]["t_contact"], 11.5);
    assert_eq!(
        (pairs[1]["a"].as_str(), pairs[1]["b"].as_str()),
        (Some("a"), Some("b"))
    );
    assert_eq!(pairs[1]["t_contact"], 14.0);
    for key in ["t_separation", "min_distance", "t_min_distance"] {
        assert!(pairs[1][key].is_number(), "{key}");
    }
    for key in [
        "candidate_pairs",
        "pruned_projection",
        "pruned_time_interval",
        "exact_solves",
        "prune_power",
        "phase_seconds",
    ] {
        assert!(!v["stats"][key].is_null(), "{key}");
    }
    // An explicit --at and a margin.
    let v = json(&horizondb_stdin(
        &[
            "collide",
            "-i",
            "-",
            "--horizon",
            "1",
            "--at",
            "13",
            "--margin",
            "0.5",
        ],
        input,
    ));
    assert_eq!(pairs_of(&v).len(), 1);
    assert_eq!(pairs_of(&v)[0]["t_contact"], 13.75);
}

#[test]
fn json_array_input_and_table_format() {
    let input = r#"[
  {"id":"a","t":0,"p":[0,0,0],"v":[1,0,0],"shape":{"box":[0.5,0.5,0.5]}},
  {"id":"b","t":0,"p":[10,0,0],"v":[-1,0,0],"shape":{"box":[0.5,0.5,0.5]}}
]"#;
    let v = json(&horizondb_stdin(
        &["collide", "-i", "-", "--horizon", "10"],
        input,
    ));
    assert_eq!(pairs_of(&v)[0]["t_contact"], 4.5);
    let t = stdout(&horizondb_stdin(
        &[
            "collide",
            "-i",
            "-",
            "--horizon",
            "10",
            "--format",
            "table",
            "--algorithm",
            "rtree",
        ],
        input,
    ));
    assert!(t.starts_with("1 pairs within [0, 10]"), "{t}");
    let header = t.lines().find(|l| l.starts_with("a ")).unwrap();
    assert!(header.contains("t_contact") && header.contains("t_min_distance"));
    assert!(t.contains("4.500000"));
    assert!(t.contains("candidates"));
}

#[test]
fn bad_input_names_line_and_field_and_prints_no_answer() {
    let good = r#"{"id":"a","t":0,"p":[0,0],"v":[1,0]}"#;
    for (bad, want) in [
        (
            r#"{"id":"b","t":0,"p":[0,0],"v":[1]}"#,
            "line 2: field `v`: has 1 numbers but `p` has 2",
        ),
        (r#"{"id":"b","t":0,"p":[0,"x"]}"#, "line 2: field `p[1]`"),
        (
            r#"{"id":"b","t":0,"p":[0,0],"shape":{"box":[1,-1]}}"#,
            "line 2: field `shape.box[1]`",
        ),
        (
            r#"{"id":"b","t":0,"p":[0,0],"force":[1,0]}"#,
            "line 2: field `mass`",
        ),
        (
            r#"{"id":"b","t":0,"p":[0,0],"velocity":[1,0]}"#,
            "line 2: unknown field `velocity`",
        ),
        (r#"{"id":"b","t":0,"p":[0,0]"#, "line 2: EOF"),
    ] {
        let o = horizondb_stdin(
            &["collide", "-i", "-", "--horizon", "1"],
            &format!("{good}\n{bad}\n"),
        );
        assert!(!o.status.success(), "{bad}");
        assert!(o.stdout.is_empty(), "no answer may be printed");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{bad}: {err}");
    }
    for (args, want) in [
        (
            vec!["--horizon", "-1"],
            "`horizon` must be a finite number >= 0, got -1",
        ),
        (
            vec!["--horizon", "1", "--margin", "-2"],
            "`margin` must be a finite number >= 0, got -2",
        ),
        (
            vec!["--horizon", "NaN"],
            "`horizon` must be a finite number >= 0, got NaN",
        ),
        (
            vec!["--horizon", "1", "--algorithm", "quadtree"],
            "unknown algorithm `quadtree`",
        ),
        (vec!["--horizon", "1", "--cell-scale", "0"], "cell scales"),
    ] {
        let mut all = vec!["collide", "-i", "-"];
        all.extend(args);
        let o = horizondb_stdin(&all, &format!("{good}\n"));
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains(want), "{want}");
    }
    // A negative query time is a time like any other.
    let o = horizondb_stdin(
        &["collide", "-i", "-", "--horizon", "1", "--at", "-5"],
        &format!("{good}\n"),
    );
    assert_eq!(json(&o)["at"], -5.0);
    let o = horizondb(&["collide", "-i", "/no/such/file", "--horizon", "1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/no/such/file"));
    let o = horizondb_stdin(&["collide", "-i", "-", "--horizon", "1"], "\n");
    assert!(String::from_utf8_lossy(&o.stderr).contains("no states"));
}

#[test]
fn duplicate_ids_keep_the_latest_state() {
    let input = "{\"id\":\"a\",\"t\":0,\"p\":[0,0],\"v\":[1,0]}\n{\"id\":\"b\",\"t\":0,\"p\":[5,0]}\n{\"id\":\"a\",\"t\":0,\"p\":[100,0]}\n";
    let o = horizondb_stdin(&["collide", "-i", "-", "--horizon", "10"], input);
    assert!(pairs_of(&json(&o)).is_empty(), "the later `a` is far away");
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 states replaced"));
}

#[test]
fn geographic_states_with_filters() {
    // Two ships closing head-on 2 km apart off the Battery, a moored pair side by side, and
    // a fleet pair on a collision course.
    let input = [
        r#"{"id":"a","t":0,"lat":40.70,"lon":-74.02,"speed":5,"course":90,"shape":{"radius":20}}"#,
        r#"{"id":"b","t":0,"lat":40.70,"lon":-73.996294,"speed":5,"course":270,"shape":{"radius":20}}"#,
        r#"{"id":"m1","t":0,"lat":40.60,"lon":-74.05,"status":"moored","shape":{"radius":30}}"#,
        r#"{"id":"m2","t":0,"lat":40.6003,"lon":-74.05,"status":"moored","shape":{"radius":30}}"#,
        r#"{"id":"f1","t":0,"lat":40.65,"lon":-74.10,"speed":3,"course":0,"group":"tugs"}"#,
        r#"{"id":"f2","t":0,"lat":40.6527,"lon":-74.10,"speed":3,"course":180,"group":"tugs"}"#,
    ]
    .join("\n");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "collide",
            "--input",
            "-",
            "--horizon",
            "600",
            "--margin",
            "10",
        ];
        args.extend_from_slice(extra);
        json(&horizondb_stdin(&args, &input))
    };
    let ids = |v: &Value| -> Vec<String> {
        pairs_of(v)
            .iter()
            .map(|p| format!("{}-{}", p["a"].as_str().unwrap(), p["b"].as_str().unwrap()))
            .collect()
    };
    let all = run(&[]);
    assert_eq!(ids(&all), ["m1-m2", "f1-f2", "a-b"], "{all}");
    // 2 km closing at 10 m/s with 50 m of radii and margin: contact after 195 s.
    let ab = &pairs_of(&all)[2];
    assert!(
        (ab["t_contact"].as_f64().unwrap() - 195.0).abs() < 0.5,
        "{ab}"
    );
    assert!(
        (ab["geo"]["contact"]["a"]["lon"].as_f64().unwrap() + 74.0088).abs() < 1e-3,
        "{ab}"
    );
    let calm = run(&["--min-speed", "0.5", "--same-group", "false"]);
    assert_eq!(ids(&calm), ["a-b"], "{calm}");
    assert_eq!(calm["stats"]["pairs_filtered"], 2);
}
