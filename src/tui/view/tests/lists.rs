//! Snapshots and screen checks of the jobs list filtered and sorted, of the columns a
//! profile chooses, and of the detail's search.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::app::JobColumn;

fn typed(scene: &mut Scene, text: &str) {
    for c in text.chars() {
        scene.key(KeyCode::Char(c));
    }
}

/// The line of a screen (as the test backend prints it) that holds `text`.
fn line_with<'s>(screen: &'s str, text: &str) -> &'s str {
    screen
        .lines()
        .find(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with {text:?}:\n{screen}"))
}

#[test]
fn a_filtered_list_shows_the_filter_and_how_many_of_all_in_its_title() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('/'));
    typed(&mut scene, "transl*faq");
    let typing = scene.render(80, 24);
    assert!(
        line_with(&typing, "Jobs · 5 tracked")
            .contains("/transl*faq▏ 1 of 5 · Enter keeps · Esc clears"),
        "{typing}"
    );
    assert!(typing.contains("Translate the FAQ") && !typing.contains("webhook"));
    scene.key(KeyCode::Enter);
    both("jobs_filtered", &scene);
    let kept = scene.render(80, 24);
    assert!(line_with(&kept, "Jobs · 5").contains("newest first /transl*faq · 1 of 5"));
}

#[test]
fn a_filter_that_keeps_nothing_says_how_to_clear_it() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('/'));
    typed(&mut scene, "nothing like this");
    let screen = scene.render(80, 24);
    assert!(screen.contains("0 of 5"), "{screen}");
    assert!(
        screen.contains("No job matches the filter: Backspace edits it, Esc clears it."),
        "{screen}"
    );
    scene.key(KeyCode::Enter);
    let kept = scene.render(80, 24);
    assert!(
        kept.contains("No job matches the filter: / edits it, Esc clears it."),
        "{kept}"
    );
}

#[test]
fn a_sorted_list_puts_the_arrow_on_its_column_and_says_the_order_in_its_title() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('s'));
    both("jobs_by_status", &scene);
    let screen = scene.render(80, 24);
    assert!(line_with(&screen, "Jobs · 5").contains("by status ▲"));
    assert!(line_with(&screen, "PROMPT").starts_with("\"STATUS▲"));
    let rows: Vec<&str> = screen.lines().skip(3).take(3).collect();
    assert!(rows[0].contains("active"), "active first:\n{screen}");
    assert!(rows[1].contains("failed"), "then failed:\n{screen}");
    scene.key(KeyCode::Char('S'));
    let reversed = scene.render(80, 24);
    assert!(line_with(&reversed, "PROMPT").starts_with("\"STATUS▼"));
    scene.key(KeyCode::Char('s'));
    scene.key(KeyCode::Char('s'));
    let by_repo = scene.render(120, 40);
    assert!(line_with(&by_repo, "PROMPT").contains("REPOSITORY@REF▲"));
}

#[test]
fn the_columns_of_the_profile_come_in_its_order() {
    let mut scene = Scene::new();
    scene.app.config.columns = vec![
        JobColumn::Prompt,
        JobColumn::Changed,
        JobColumn::Status,
        JobColumn::Id,
    ];
    let screen = scene.render(80, 24);
    let header = line_with(&screen, "PROMPT");
    let at = |name: &str| header.find(name).unwrap_or(usize::MAX);
    assert!(at("PROMPT") < at("CHANGED"), "{header}");
    assert!(
        at("CHANGED") < at("STATUS") && at("STATUS") < at("ID"),
        "{header}"
    );
    assert!(
        !header.contains("AGE") && !header.contains("PR "),
        "{header}"
    );
}

#[test]
fn every_column_at_80x24_keeps_the_width_rules_and_room_for_the_prompt() {
    let mut scene = Scene::new();
    scene.app.config.columns = JobColumn::NAMES.iter().map(|(_, c)| *c).collect();
    let narrow = scene.render(80, 24);
    let header = line_with(&narrow, "PROMPT");
    assert!(
        !header.contains("MODEL"),
        "the model only from 110:\n{narrow}"
    );
    assert!(header.contains("REPO@REF"), "{header}");
    let prompt_at = header.find("PROMPT").unwrap();
    assert!(prompt_at <= 80 - 10, "ten cells for the prompt:\n{narrow}");
    let wide = scene.render(120, 40);
    assert!(line_with(&wide, "PROMPT").contains("MODEL"), "{wide}");
    // At the smallest size, columns go from the end until the prompt fits.
    let small = scene.render(60, 15);
    assert!(line_with(&small, "PROMPT").contains("STATUS"), "{small}");
}

fn detail_with_lines() -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Enter);
    let lines: Vec<String> = (1..=40)
        .map(|i| format!("step {i:02} of the plan"))
        .collect();
    scene.send(Msg::Detail {
        id: "job_7f3a9c21d0e4".into(),
        conversation: vec![SentPrompt {
            prompt: lines.join("\n"),
            sent_at: wall(),
            kind: SubmissionKind::Create,
        }],
        timeline: Vec::new(),
    });
    scene
}

#[test]
fn the_detail_search_shows_the_current_match_and_how_many_and_n_brings_the_next_into_sight() {
    let mut scene = detail_with_lines();
    scene.key(KeyCode::Char('/'));
    typed(&mut scene, "step 3");
    let screen = scene.render(80, 24);
    assert!(screen.contains("/step 3▏ 1/10"), "{screen}");
    assert!(
        screen.contains("step 30 of the plan"),
        "the first match in sight:\n{screen}"
    );
    scene.key(KeyCode::Enter);
    for _ in 0..9 {
        scene.key(KeyCode::Char('n'));
        scene.render(80, 24);
    }
    let last = scene.render(80, 24);
    assert!(last.contains("/step 3 10/10 · n N"), "{last}");
    assert!(last.contains("step 39 of the plan"), "{last}");
    scene.key(KeyCode::Char('n'));
    let round = scene.render(80, 24);
    assert!(round.contains("1/10"), "{round}");
    both("detail_search", &scene);
}

#[test]
fn a_search_without_a_match_says_so() {
    let mut scene = detail_with_lines();
    scene.key(KeyCode::Char('/'));
    typed(&mut scene, "zebra");
    let screen = scene.render(80, 24);
    assert!(screen.contains("/zebra▏ no match"), "{screen}");
}

#[test]
fn the_current_match_is_drawn_selected_and_the_others_marked() {
    let mut scene = detail_with_lines();
    scene.key(KeyCode::Char('/'));
    typed(&mut scene, "step 0");
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let cx = ViewContext {
        wall: wall(),
        mono: scene.base,
        theme: Theme { color: true },
        utc: true,
    };
    let mut memory = ViewMemory::default();
    terminal
        .draw(|frame| draw(frame, &scene.app, &cx, &mut memory))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let style_of = |text: &str| {
        let y = (0..24)
            .find(|&y| {
                let row: String = (0..80).map(|x| buffer[(x, y)].symbol()).collect();
                row.contains(text)
            })
            .unwrap();
        let x = (0..80)
            .find(|&x| buffer[(x, y)].symbol() == "s" && buffer[(x + 1, y)].symbol() == "t")
            .unwrap();
        buffer[(x, y)].style()
    };
    assert!(
        style_of("step 01")
            .add_modifier
            .contains(ratatui::style::Modifier::REVERSED),
        "the current match is drawn as selected"
    );
    let other = style_of("step 02");
    assert!(
        other.fg.is_some()
            && !other
                .add_modifier
                .contains(ratatui::style::Modifier::REVERSED),
        "another match is marked in colour: {other:?}"
    );
    assert_eq!(
        memory.viewport().found.map(|f| f.matches),
        Some(9),
        "the app learns how many"
    );
}
