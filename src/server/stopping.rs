//! What `serve` says when it is stopped with turns under way: which turns end, how they
//! read after a restart, and the turns still waiting.

use super::agent;

/// The stopping note's words: `running` turns (job, turn), `waiting` turns, and whether
/// the agent runs an interrupted turn again (`reruns`).
pub(super) fn words(running: &[(String, i64)], waiting: i64, reruns: bool) -> String {
    let turns: Vec<String> = running
        .iter()
        .map(|(job, turn)| format!("turn {turn} of {job}"))
        .collect();
    let mut note = match (turns.is_empty(), reruns) {
        (true, _) => String::new(),
        (false, true) => format!(
            "Stopping interrupts {}; the simulated agent runs {} again at the next start. ",
            turns.join(", "),
            if turns.len() == 1 { "it" } else { "them" }
        ),
        (false, false) => format!(
            "Stopping ends {} and kills {}; at the next start {} `failed` with \"{}\" (a follow-up retries). ",
            turns.join(", "),
            if turns.len() == 1 {
                "its agent"
            } else {
                "their agents"
            },
            if turns.len() == 1 {
                "that job reads"
            } else {
                "those jobs read"
            },
            agent::INTERRUPTED
        ),
    };
    if waiting > 0 {
        note.push_str(&format!(
            "{waiting} waiting turn{} will run at the next start.",
            if waiting == 1 { "" } else { "s" }
        ));
    }
    note.trim_end().to_owned()
}

/// The stopping note of a PostgreSQL node `node`: the turns it runs end, and another node
/// (or this one started again) fails them once their `lease` runs out; the turns waiting
/// stay for the other nodes.
pub(super) fn node_words(
    running: &[(String, i64)],
    waiting: i64,
    node: &str,
    lease: std::time::Duration,
) -> String {
    let turns: Vec<String> = running
        .iter()
        .map(|(job, turn)| format!("turn {turn} of {job}"))
        .collect();
    let one = turns.len() == 1;
    let mut note = String::new();
    if !turns.is_empty() {
        note = format!(
            "Stopping node {node} ends {} and kills {}; once {} lease runs out ({} s), a running node fails {} with \"{}\" (a follow-up retries). ",
            turns.join(", "),
            if one { "its agent" } else { "their agents" },
            if one { "its" } else { "their" },
            lease.as_secs().max(1),
            if one { "that job" } else { "those jobs" },
            agent::NODE_STOPPED
        );
    }
    if waiting > 0 {
        note.push_str(&format!(
            "{waiting} waiting turn{} stay{} in the database for the other nodes, or for the next start.",
            if waiting == 1 { "" } else { "s" },
            if waiting == 1 { "s" } else { "" }
        ));
    }
    note.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::{node_words, words};

    /// A PostgreSQL node says which of its turns stop and who fails them (issue 26).
    #[test]
    fn a_postgres_node_says_which_of_its_turns_stop() {
        let one = [("job_a".to_owned(), 2)];
        let note = node_words(&one, 3, "web-1", std::time::Duration::from_secs(30));
        assert!(
            note.starts_with("Stopping node web-1 ends turn 2 of job_a and kills its agent; once its lease runs out (30 s), a running node fails that job with"),
            "{note}"
        );
        // Not "interrupted by a restart": no restart need happen (the trial of stop 33).
        assert!(
            note.contains(
                "\"interrupted: the node running it stopped; send a follow-up to retry\""
            ),
            "{note}"
        );
        assert!(
            note.ends_with(
                "3 waiting turns stay in the database for the other nodes, or for the next start."
            ),
            "{note}"
        );
        assert_eq!(
            node_words(&[], 1, "web-1", std::time::Duration::from_secs(30)),
            "1 waiting turn stays in the database for the other nodes, or for the next start."
        );
    }

    /// Two turns ended by a stop read "kills their agent" (the soak, 2026-11-27).
    #[test]
    fn the_stopping_note_counts_agents_as_it_counts_turns() {
        let one = [("job_a".to_owned(), 1)];
        let two = [("job_a".to_owned(), 1), ("job_b".to_owned(), 2)];
        assert!(words(&one, 0, false).contains("turn 1 of job_a and kills its agent;"));
        let both = words(&two, 1, false);
        assert!(
            both.contains("turn 1 of job_a, turn 2 of job_b and kills their agents;"),
            "{both}"
        );
        assert!(
            both.ends_with("1 waiting turn will run at the next start."),
            "{both}"
        );
        assert!(words(&two, 0, true).contains("runs them again"));
    }
}
