//! Bytes on the wire (issue 28): a frame where only ten jobs' ages moved by a second is
//! written as those few cells, not as whole rows, at 80x24 and 120x40.

use ratatui::buffer::Buffer;

use super::*;
use crate::tui::wire::draw_cells;

/// Ten active jobs made 12 to 21 seconds before `wall()`.
fn busy() -> Scene {
    let mut scene = Scene::new();
    let jobs: Vec<TrackedJob> = (0..10)
        .map(|i| {
            let id = format!("job_{i:012}");
            let mut snapshot = job(&id, "active", 0, None);
            snapshot.created_at = Some(wall() - chrono::Duration::seconds(12 + i));
            TrackedJob {
                id: id.clone(),
                snapshot: Some(snapshot),
                seen_at: Some(wall()),
                changed_at: None,
                first_prompt: Some(format!("Rewrite guide {i}")),
            }
        })
        .collect();
    scene.send(Msg::Loaded(Box::new(Startup {
        jobs,
        drafts: Vec::new(),
        visitors_filter: None,
        set_aside: None,
        unsure: Vec::new(),
        budget: Budget::default(),
    })));
    scene
}

fn frame_at(scene: &Scene, width: u16, height: u16, wall: DateTime<Utc>) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    let cx = ViewContext {
        wall,
        mono: scene.base,
        theme: Theme::default(),
        utc: true,
    };
    let mut memory = scene.memory.borrow_mut();
    terminal
        .draw(|frame| draw(frame, &scene.app, &cx, &mut memory))
        .unwrap();
    terminal.backend().buffer().clone()
}

#[test]
fn a_second_of_ten_ages_is_written_as_the_changed_cells_alone() {
    let scene = busy();
    for (width, height) in [(80, 24), (120, 40)] {
        let before = frame_at(&scene, width, height, wall());
        let after = frame_at(&scene, width, height, wall() + chrono::Duration::seconds(1));
        let changed = before.diff(&after);
        // The ages, and at most the status line's clock: never whole rows.
        let rows: std::collections::BTreeSet<u16> = changed.iter().map(|(_, y, _)| *y).collect();
        for y in &rows {
            let on_row = changed.iter().filter(|(_, cy, _)| cy == y).count();
            assert!(
                on_row <= 8,
                "row {y} rewritten: {on_row} cells at {width}x{height}"
            );
        }
        let mut bytes = Vec::new();
        draw_cells(&mut bytes, width, changed.into_iter()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        // Ten digits, a move of two or three bytes between rows, one colour and one reset.
        assert!(
            bytes.len() <= 80,
            "{} bytes at {width}x{height}: {text:?}",
            bytes.len()
        );
    }
}
