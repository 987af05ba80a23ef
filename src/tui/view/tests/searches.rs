//! Screens of the searches pane (issue 27): the searches with the queries nobody
//! clicked through first, the assistant's unanswered questions, marks, and both under
//! `NO_COLOR`, at 80x24 and 120x40.

use crossterm::event::KeyCode;

use super::*;
use crate::api::signals::{AssistantPage, Conversation, SearchRow, SearchesPage};
use crate::tui::message::{Io, SignalsPage};

fn search(query: &str, hits: u64, ctr: f64, page: Option<&str>, day: u32) -> SearchRow {
    SearchRow {
        search_query: query.into(),
        hits,
        ctr,
        top_clicked_page: page.map(str::to_owned),
        last_searched_at: format!("2026-11-{day:02}T09:30:00.000Z"),
    }
}

fn searches() -> SearchesPage {
    SearchesPage {
        searches: vec![
            search("api key", 64, 0.8125, Some("/guides/authentication"), 21),
            search("webhooks", 41, 35.0 / 41.0, Some("/guides/webhooks"), 21),
            search(
                "rate limit",
                37,
                30.0 / 37.0,
                Some("/guides/rate-limits"),
                20,
            ),
            search("sso saml", 29, 0.0, None, 21),
            search("delete project", 23, 0.0, None, 19),
            search(
                "pagination cursor",
                18,
                11.0 / 18.0,
                Some("/api-reference/pagination/cursors-and-limits"),
                18,
            ),
            search("terraform provider", 16, 0.0, None, 20),
            search("x\x1b[2J\x1b]52;c;ZXZpbA==\x07 clear", 3, 0.0, None, 17),
            search(
                "rotate api key",
                12,
                1.0 / 12.0,
                Some("/guides/authentication"),
                16,
            ),
            search("audit log export", 9, 0.0, None, 16),
        ],
        total_searches: 252,
        next_cursor: Some("next".into()),
    }
}

fn asked(id: &str, question: &str, day: u32, answered: bool) -> Conversation {
    Conversation {
        id: id.into(),
        timestamp: format!("2026-11-{day:02}T14:05:00.000Z"),
        query: question.into(),
        response: String::new(),
        response_type: None,
        sources: Vec::new(),
        resolution_status: if answered { "answered" } else { "unanswered" }.into(),
        query_category: None,
        page_url: (day == 20).then(|| "/guides/authentication".to_owned()),
    }
}

fn questions() -> AssistantPage {
    AssistantPage {
        conversations: vec![
            asked("c6", "How do I delete a project and its data?", 21, false),
            asked("c5", "What is the rate limit for creates?", 20, true),
            asked("c4", "Is there a Terraform provider?", 20, false),
            asked("c2", "Can I export the audit log to S3?", 17, false),
            asked("c1", "How do I set up SAML single sign-on?", 16, false),
        ],
        next_cursor: None,
        has_more: false,
    }
}

fn read(scene: &mut Scene, key: char, page: SignalsPage) {
    let now = scene.clock();
    let drawn = Msg::Drawn(scene.memory.borrow().viewport());
    let _ = scene.app.update(drawn, now);
    let effects = scene.app.update(
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char(key),
            KeyModifiers::NONE,
        ))),
        now,
    );
    let generation = effects
        .iter()
        .find_map(|e| match e {
            crate::tui::message::Effect::Io(Io::ReadSignals { generation, .. }) => {
                Some(*generation)
            }
            _ => None,
        })
        .expect("the list is read");
    scene.send(Msg::Signals {
        generation,
        result: Ok(page),
    });
}

/// The searches shown, two rows marked.
fn with_searches() -> Scene {
    let mut scene = Scene::new();
    read(&mut scene, '4', SignalsPage::Searches(searches()));
    scene.key(KeyCode::Char(' '));
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char(' '));
    scene
}

fn with_questions() -> Scene {
    let mut scene = with_searches();
    read(&mut scene, 'a', SignalsPage::Assistant(questions()));
    scene.key(KeyCode::Char('j'));
    scene.key(KeyCode::Char(' '));
    scene
}

#[test]
fn the_searches_list_puts_the_queries_nobody_clicked_through_first() {
    let scene = with_searches();
    let screen = scene.render(120, 40);
    let rows: Vec<&str> = screen.lines().skip(5).take(10).collect();
    let first_clicked = rows.iter().position(|l| l.contains('%')).unwrap();
    assert!(
        rows[..first_clicked].iter().all(|l| l.contains("none")),
        "{screen}"
    );
    assert_eq!(first_clicked, 5, "{screen}");
    assert!(screen.contains("more: ]"), "{screen}");
    both("searches", &scene);
}

#[test]
fn the_unanswered_questions_list() {
    let scene = with_questions();
    let screen = scene.render(120, 40);
    assert!(
        screen.contains("4 unanswered of 5 questions read"),
        "{screen}"
    );
    assert!(
        !screen.contains("rate limit for creates"),
        "answered: {screen}"
    );
    both("searches_questions", &scene);
}

#[test]
fn no_color_keeps_both_lists_readable() {
    for (name, scene) in [
        ("searches", with_searches()),
        ("questions", with_questions()),
    ] {
        for (width, height) in [(80, 24), (120, 40)] {
            let plain = scene
                .draw_in(width, height, Theme::default().without_color())
                .backend()
                .to_string();
            // The list shown in brackets, the marks as a sign, no click as a word.
            assert!(
                plain.contains("[Searches") || plain.contains("[Unanswered"),
                "{plain}"
            );
            assert!(plain.contains('●'), "{plain}");
            insta::assert_snapshot!(format!("searches_{name}_no_color_{width}x{height}"), plain);
        }
    }
}

/// The line of the two lists' names, and the footer, as drawn at 120x40.
fn strip_and_footer(scene: &Scene) -> (String, String) {
    let screen = scene.render(120, 40);
    let lines: Vec<&str> = screen.lines().collect();
    (lines[1].to_owned(), lines[lines.len() - 3].to_owned())
}

#[test]
fn a_count_says_when_it_covers_only_the_pages_read_and_goes_with_other_dates() {
    let mut scene = Scene::new();
    read(&mut scene, '4', SignalsPage::Searches(searches()));
    let (strip, _) = strip_and_footer(&scene);
    // A page is left unread: the count is of the rows read, at least.
    assert!(strip.contains("[Searches: 5+ with no click]"), "{strip}");
    read(&mut scene, 'a', SignalsPage::Assistant(questions()));
    let (strip, _) = strip_and_footer(&scene);
    assert!(strip.contains("[Unanswered questions: 4]"), "{strip}");
    // Other dates in the visitors pane: neither count is of them.
    scene.app.visitors.range = crate::tui::app::DateRange::LastDays(30);
    let (strip, footer) = strip_and_footer(&scene);
    assert!(
        strip.contains("Searches ") && !strip.contains("with no click"),
        "{strip}"
    );
    assert!(strip.contains("[Unanswered questions]"), "{strip}");
    assert!(footer.contains("4 unanswered"), "{footer}");
    // Shown again, the list is read for them: "…" until the page comes.
    scene.key(KeyCode::Char('1'));
    scene.key(KeyCode::Char('4'));
    let (strip, _) = strip_and_footer(&scene);
    assert!(strip.contains("[Unanswered questions: …]"), "{strip}");
}

#[test]
fn the_footer_starts_with_no_separator_and_the_first_mark_shifts_nothing() {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('4'));
    let (_, footer) = strip_and_footer(&scene);
    assert!(footer.starts_with("\" loading…"), "{footer:?}");
    let mut scene = Scene::new();
    read(&mut scene, '4', SignalsPage::Searches(searches()));
    let before = scene.render(120, 40);
    scene.key(KeyCode::Char(' '));
    let after = scene.render(120, 40);
    let row = |screen: &str, query: &str| {
        let line = screen
            .lines()
            .find(|l| l.contains(query))
            .unwrap()
            .to_owned();
        line[..line.find(query).unwrap()].chars().count()
    };
    assert_eq!(
        row(&before, "webhooks"),
        row(&after, "webhooks"),
        "{before}\n{after}"
    );
    assert_eq!(row(&before, "sso saml"), row(&after, "sso saml"));
}

#[test]
fn the_help_says_each_note_whole_on_its_line_and_what_the_mouse_does() {
    let mut scene = Scene::new();
    read(&mut scene, '4', SignalsPage::Searches(searches()));
    scene.key(KeyCode::Char('?'));
    for (width, height) in [(80, 24), (120, 40)] {
        let screen = scene.render(width, height);
        for note in [
            "dates: the visitors pane's (3 then f changes them)",
            "r reads the list shown again",
            "a click selects a row; the wheel moves three rows",
        ] {
            assert!(screen.contains(note), "{note}:\n{screen}");
        }
    }
}

/// `w` reads every page left: the footer says so while it reads (issue 27).
#[test]
fn the_footer_says_every_page_is_being_read() {
    let mut scene = Scene::new();
    read(&mut scene, '4', SignalsPage::Searches(searches()));
    let (_, footer) = strip_and_footer(&scene);
    assert!(footer.contains("more: ] · all: w"), "{footer}");
    scene.key(KeyCode::Char('w'));
    let (_, footer) = strip_and_footer(&scene);
    assert!(footer.contains("reading every page…"), "{footer}");
    both("searches_reading_all", &scene);
}
