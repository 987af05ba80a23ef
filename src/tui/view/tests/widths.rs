//! Tables with wide (CJK, emoji), combining and joined text: every cell fits its column
//! by display width, a path keeps its distinguishing end after `…`, no two pages read the
//! same, and no cluster that terminals draw at another width (flags, skin tones, joined
//! emoji) reaches the screen.

use crossterm::event::KeyCode;

use super::*;
use crate::tui::message::{InsightMsg, WholeEnd};

/// Pages told apart only by their ends, behind long wide, combining or joined text.
const PATHS: [&str; 8] = [
    "/文档/用户指南/安装与配置/高级设置/第二部分",
    "/文档/用户指南/安装与配置/高级设置/第三部分",
    "/guides/🚀-launch-checklist-for-teams-and-organizations/end-a",
    "/guides/🚀-launch-checklist-for-teams-and-organizations/end-b",
    "/fr/re\u{301}fe\u{301}rence/parame\u{300}tres-avance\u{301}s-de-l-api/fin",
    "/intl/🇯🇵/日本語ガイド/はじめに/インストール",
    "/team/👨\u{200D}👩\u{200D}👧/plans-and-pricing/family",
    "/reactions/👍🏽/how-to-react-to-a-comment/thumbs",
];

/// The end that tells each page apart, as it must show.
const ENDS: [&str; 8] = [
    "第二部分",
    "第三部分",
    "/end-a",
    "/end-b",
    "avance\u{301}s-de-l-api/fin",
    "/インストール",
    "/family",
    "/thumbs",
];

fn wide_page() -> VisitorsPage {
    let visitors = PATHS
        .iter()
        .zip(0u64..)
        .map(|(path, i)| PathVisitors {
            path: (*path).into(),
            human: 900 - i * 10,
            ai: 100 + i,
            total: 1_000 - i * 9,
        })
        .collect();
    VisitorsPage {
        totals: VisitorTotals {
            human: 7_000,
            ai: 900,
            total: 7_700,
        },
        visitors,
        has_more: false,
    }
}

fn paged() -> Scene {
    let mut scene = Scene::new();
    scene.key(KeyCode::Char('3'));
    let generation = scene.app.visitors.load().generation().unwrap();
    scene.send(Msg::Visitors {
        generation,
        result: Ok(wide_page()),
    });
    scene
}

fn whole_scene() -> Scene {
    let mut scene = paged();
    scene.key(KeyCode::Char('w'));
    let generation = scene.app.visitors.whole.generation().unwrap();
    scene.send(Msg::Insight(InsightMsg::Whole {
        generation,
        result: Ok(WholeEnd::All {
            page: wide_page(),
            previous: None,
        }),
        requests: 1,
    }));
    scene
}

/// Each page's row shows its end after `…` (or whole), every row reads differently, no
/// line is wider than the screen, and no unsteady cluster is drawn.
fn assert_fitted(scene: &Scene, what: &str) {
    for (width, height) in [(80u16, 24u16), (120, 40)] {
        let screen = scene.render(width, height);
        for line in screen.lines() {
            // TestBackend quotes each line and names the cells hidden by wide characters.
            let line = line.split("\" Hidden by").next().unwrap_or(line);
            let line = line.trim_matches('"');
            assert!(
                crate::text::width(line) <= usize::from(width),
                "{what} {width}x{height}: a line overflows: {line}"
            );
            assert!(
                !line.contains(['\u{200D}', '\u{FE0F}', '\u{1F3FD}', '\u{1F1EF}']),
                "{what} {width}x{height}: a cluster terminals disagree on: {line}"
            );
        }
        for (path, end) in PATHS.iter().zip(ENDS) {
            let found: Vec<&str> = screen.lines().filter(|l| l.contains(end)).collect();
            assert_eq!(
                found.len(),
                1,
                "{what} {width}x{height}: the end {end:?} shows in {found:?}:\n{screen}"
            );
            assert!(
                found[0].contains(&*crate::text::steady(path)) || found[0].contains('…'),
                "{what} {width}x{height}: cut without a sign: {}",
                found[0]
            );
        }
    }
}

#[test]
fn wide_combining_and_joined_paths_keep_their_ends_in_the_pages_table() {
    let scene = paged();
    assert_fitted(&scene, "pages");
    both("visitors_wide_paths", &scene);
}

#[test]
fn wide_combining_and_joined_paths_keep_their_ends_in_the_whole_range_table() {
    let scene = whole_scene();
    assert_fitted(&scene, "whole range");
    both("visitors_wide_paths_whole", &scene);
}
