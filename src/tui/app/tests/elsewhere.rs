//! Jobs another docdeck tracked or saw change (the CLI, a script, another console),
//! arriving through the journal: new ones are added and read at once, changed ones are
//! read again whatever the journal says of them, and the cursor keeps its place.

use crossterm::event::KeyCode;

use super::*;
use crate::api::JobStatus;
use crate::journal::TrackedJob;
use crate::tui::message::Io;

#[test]
fn r_picks_up_jobs_another_docdeck_tracked() {
    let mut h = Harness::new(vec![tracked("a", "completed", 0)]);
    let effects = h.key(KeyCode::Char('r'));
    assert!(effects.contains(&Effect::Io(Io::ReloadTracked)));
    let effects = h.send(Msg::TrackedList(vec![
        tracked("a", "completed", 0),
        tracked("cli", "active", 5),
    ]));
    assert_eq!(h.app.jobs.rows.len(), 2);
    assert_eq!(h.app.jobs.rows[0].id, "cli");
    assert_eq!(
        fetches(&effects),
        vec!["cli"],
        "the new job is read at once"
    );
    assert!(
        effects.contains(&Effect::Io(Io::RefreshBudget)),
        "its create was counted elsewhere: the budget is read again"
    );
}

#[test]
fn a_failed_job_another_docdeck_saw_revived_is_read_at_once() {
    let mut h = Harness::new(vec![
        tracked("f", "failed", 0),
        tracked("c", "completed", 1),
    ]);
    h.tick(1.0);
    let effects = h.send(Msg::TrackedList(vec![
        tracked("f", "active", 0),
        tracked("c", "completed", 1),
    ]));
    assert_eq!(
        fetches(&effects),
        vec!["f"],
        "the job the CLI revived, not the one it saw as before"
    );
}

/// Another docdeck saw a completed job archived: the console scheduled it by that status,
/// which is never read, and its row said `completed` for good (seen in a soak: three
/// consoles kept 10 archived jobs `completed` for over 12 minutes).
#[test]
fn a_job_another_docdeck_saw_archived_is_read_at_once() {
    let mut h = Harness::new(vec![tracked("c", "completed", 0)]);
    h.tick(1.0);
    let effects = h.send(Msg::TrackedList(vec![tracked("c", "archived", 0)]));
    assert_eq!(fetches(&effects), vec!["c"]);
}

/// `r` reads every job not shown archived again. Its reload of the journal answered while
/// the reads went four at a time, and each job the journal had archived was taken off the
/// schedule before its read: one `r` read four of sixteen stale rows (the soak).
#[test]
fn r_reads_every_job_not_shown_archived_even_when_the_journal_says_archived() {
    let ids: Vec<String> = (0..6).map(|n| format!("j{n}")).collect();
    let mut h = Harness::new(
        ids.iter()
            .enumerate()
            .map(|(n, id)| tracked(id, "completed", i64::try_from(n).unwrap()))
            .collect(),
    );
    h.tick(1.0);
    let mut read = fetches(&h.key(KeyCode::Char('r')));
    let archived: Vec<TrackedJob> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| tracked(id, "archived", i64::try_from(n).unwrap()))
        .collect();
    read.extend(fetches(&h.send(Msg::TrackedList(archived))));
    // Reads the journal's answer raced are not believed and go again: answer until done.
    for _ in 0..4 * ids.len() {
        let Some(id) = read.iter().find(|id| {
            h.app.jobs.get(id.as_str()).and_then(|r| r.status()) != Some(&JobStatus::Archived)
        }) else {
            break;
        };
        let id = id.clone();
        read.extend(fetches(&h.send(Msg::JobFetched {
            id: id.clone(),
            result: Ok(job(&id, "archived", 0)),
        })));
    }
    read.sort();
    read.dedup();
    assert_eq!(read, ids);
    assert!(
        h.app
            .jobs
            .rows
            .iter()
            .all(|r| r.status() == Some(&JobStatus::Archived))
    );
}

#[test]
fn the_cursor_on_the_newest_job_follows_newer_ones_and_stays_where_it_was_moved() {
    let mut h = Harness::new(vec![tracked("a", "completed", 0)]);
    assert_eq!(h.app.jobs.selected().map(|r| r.id.as_str()), Some("a"));
    h.send(Msg::TrackedList(vec![tracked("b", "active", 5)]));
    assert_eq!(
        h.app.jobs.selected().map(|r| r.id.as_str()),
        Some("b"),
        "at the top of a newest-first list, the cursor stays at the top"
    );
    h.key(KeyCode::Char('j'));
    assert_eq!(h.app.jobs.selected().map(|r| r.id.as_str()), Some("a"));
    h.send(Msg::TrackedList(vec![tracked("c", "active", 9)]));
    assert_eq!(
        h.app.jobs.selected().map(|r| r.id.as_str()),
        Some("a"),
        "a job the cursor was moved to stays chosen"
    );
}
