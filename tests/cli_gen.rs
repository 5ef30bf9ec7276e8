use crate::util::{horizondb, stdout};

#[test]
fn same_seed_same_bytes_and_every_line_is_a_state() {
    let a = stdout(&horizondb(&[
        "gen",
        "--n",
        "300",
        "--seed",
        "9",
        "--distribution",
        "city",
    ]));
    let b = stdout(&horizondb(&[
        "gen",
        "--n",
        "300",
        "--seed",
        "9",
        "--distribution",
        "city",
    ]));
    assert_eq!(a, b);
    assert_eq!(a.lines().count(), 300);
    let c = stdout(&horizondb(&[
        "gen",
        "--n",
        "300",
        "--seed",
        "10",
        "--distribution",
        "city",
    ]));
    assert_ne!(a, c);
    let loaded = horizon_datasets::parse_states(&a).unwrap();
    assert_eq!(loaded.states.len(), 300);
}

#[test]
fn writes_to_a_file_and_rejects_bad_limits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.ndjson");
    let o = horizondb(&[
        "gen",
        "--n",
        "10",
        "--motion",
        "nonlinear",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 10);
    assert!(text.contains("\"accel\""));
    let o = horizondb(&["gen", "--n", "10", "--vmax", "-1"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--vmax must be a finite number >= 0, got -1")
    );
}
