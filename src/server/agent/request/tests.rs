//! The commit message of a turn.

use super::*;

#[test]
fn commit_subjects_are_the_prompts_first_line_kept_short() {
    assert_eq!(commit_subject("\nFix the typo\nin intro"), "Fix the typo");
    let long = "x".repeat(100);
    assert_eq!(commit_subject(&long).chars().count(), 72);
}

fn turn(prompt: &str) -> PendingTurn {
    PendingTurn {
        job_seq: 1,
        job_id: "job_abc".into(),
        project: "demo".into(),
        turn: 2,
        prompt: prompt.into(),
        repository: "r".into(),
        prompts: Vec::new(),
    }
}

#[test]
fn the_commit_body_holds_the_whole_prompt_and_the_job() {
    let long_line = format!("Rewrite {}", "every page ".repeat(10));
    let prompt = format!("{long_line}\nand keep the tone.\n\n- one\n- two");
    let message = commit_message(&turn(&prompt));
    let (subject, body) = message.split_once("\n\n").unwrap();
    assert_eq!(subject.chars().count(), 72);
    assert!(subject.ends_with('…'));
    assert!(body.starts_with(&prompt), "{message}");
    assert!(
        body.ends_with("Docdeck-Job: job_abc\nDocdeck-Turn: 2\n"),
        "{message}"
    );
    let short = commit_message(&turn("Fix the typo"));
    assert_eq!(
        short,
        "Fix the typo\n\nDocdeck-Job: job_abc\nDocdeck-Turn: 2\n"
    );
}

/// A file written by tokio is only complete once flushed: without it, a reader that runs
/// as soon as `write_prompt` returns (`git commit --file`) could find it empty or short,
/// as a turn did on a loaded machine ("Aborting commit due to empty commit message").
#[tokio::test]
async fn a_prompt_file_is_whole_as_soon_as_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let prompt = "Fix the typos in the quickstart\n".repeat(40_000);
    for n in 0..20 {
        let path = dir.path().join(format!("turn-{n}.commit"));
        write_prompt(&path, &prompt).await.unwrap();
        let read = std::fs::read_to_string(&path).unwrap();
        assert_eq!(read.len(), prompt.len(), "write {n}");
    }
}
