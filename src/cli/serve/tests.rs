//! `serve`'s arguments and notices: the lease, the node name, and a node that seeded
//! nothing beside another.

use super::*;

#[test]
fn a_lease_is_one_a_node_can_keep() {
    // `--lease 0s` was taken and panicked in every job (the trial of stop 33).
    for bad in ["0s", "500ms", "2d", "99999999d"] {
        let err = lease_arg(bad).unwrap_err();
        assert!(err.contains("from 1s to 1d"), "{bad}: {err}");
    }
    assert_eq!(lease_arg("2s"), Ok(Duration::from_secs(2)));
    assert_eq!(lease_arg("1d"), Ok(Duration::from_secs(86_400)));
    assert!(lease_arg("soon").unwrap_err().contains("not a duration"));
}

#[test]
fn a_node_that_seeded_nothing_says_another_did() {
    // The trial of stop 33: the second node said it was "given … 0 views over 243 pages
    // … and 0 finished jobs" while the first had written them.
    let nothing = server::seed::SeedSummary {
        views: 0,
        pages: 243,
        jobs: Vec::new(),
    };
    let note = seeded_notice("demo", &nothing).replace('\n', " ");
    let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        note.contains("written by another node that started at the same time"),
        "{note}"
    );
    assert!(!note.contains("0 views"), "{note}");
}

#[test]
fn a_node_name_is_printable() {
    // An escape sequence in --node-name reached the logs raw (the trial of stop 33).
    let err = node_name_arg("left\u{1b}[31m").unwrap_err();
    assert!(
        err.contains("control characters") && !err.contains('\u{1b}'),
        "{err}"
    );
    assert!(node_name_arg(" ").is_err());
    assert!(node_name_arg(&"n".repeat(65)).is_err());
    assert_eq!(node_name_arg("build-3:4121").unwrap(), "build-3:4121");
}
