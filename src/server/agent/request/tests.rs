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
