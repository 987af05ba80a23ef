//! Text in terminal cells, for every table of the CLI and the console alike: its width
//! counted by grapheme cluster (a letter and its combining accents, a flag, an emoji and
//! its skin tone, a family joined by zero-width joiners: each is one thing on screen, and
//! is measured and cut whole), text cut to a width with `…` at the end or at the start,
//! and the clusters that terminals draw at different widths made plain, so that no
//! terminal leaves a stray cell beside them.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation as _;
use unicode_width::UnicodeWidthStr as _;

/// Columns `text` takes on screen, cluster by cluster, as ratatui counts them when it
/// draws (0 for a combining mark, 2 for a wide character).
#[must_use]
pub fn width(text: &str) -> usize {
    text.graphemes(true).map(str::width).sum()
}

/// `text` in at most `columns` cells, cut at the end with `…` when it does not fit
/// (nothing at all in no room). Never cuts inside a cluster.
#[must_use]
pub fn keep_start(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return text.to_owned();
    }
    if columns == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for cluster in text.graphemes(true) {
        let w = cluster.width();
        if used + w + 1 > columns {
            break;
        }
        used += w;
        out.push_str(cluster);
    }
    out.push('…');
    out
}

/// `text` in at most `columns` cells, cut at the start with `…` when it does not fit,
/// so that its end stays: `…/guides/authentication/troubleshooting`. The end of a path
/// or link is what tells rows apart. Never cuts inside a cluster.
#[must_use]
pub fn keep_end(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return text.to_owned();
    }
    if columns == 0 {
        return String::new();
    }
    let mut tail = Vec::new();
    let mut used = 0;
    for cluster in text.graphemes(true).rev() {
        let w = cluster.width();
        if used + w + 1 > columns {
            break;
        }
        used += w;
        tail.push(cluster);
    }
    std::iter::once("…").chain(tail.into_iter().rev()).collect()
}

/// `text` with the clusters terminals disagree on made plain, for tables, where a cell
/// drawn one column wider or narrower than counted shifts the rest of the row and leaves
/// a stray cell until the next full redraw (tmux, for one, draws a flag as two letters
/// and a skin-toned emoji as two emoji). A flag becomes its two letters (`🇯🇵` → `JP`, as
/// wide as a flag is counted), an emoji keeps its base without a skin tone, a joined
/// sequence keeps its first emoji, and a variation selector or keycap mark is dropped.
#[must_use]
pub fn steady(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsteady) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for cluster in text.graphemes(true) {
        if !cluster.chars().any(unsteady) {
            out.push_str(cluster);
            continue;
        }
        let letters: String = cluster.chars().filter_map(regional_letter).collect();
        if !letters.is_empty() {
            out.push_str(&letters);
            continue;
        }
        // The part before the first joiner, without the marks that change its width.
        let base = cluster.split('\u{200D}').next().unwrap_or_default();
        let plain: String = base.chars().filter(|&c| !unsteady(c)).collect();
        out.push_str(if plain.is_empty() { "\u{FFFD}" } else { &plain });
    }
    Cow::Owned(out)
}

/// Whether every terminal draws `text` at the width [`width`] counts: it holds none of
/// the clusters [`steady`] makes plain.
#[must_use]
pub fn is_steady(text: &str) -> bool {
    !text.chars().any(unsteady)
}

/// Characters whose cluster terminals may draw at another width than counted: the
/// zero-width joiner, regional indicators (flags), skin-tone modifiers, the emoji
/// variation selector and the keycap mark.
fn unsteady(c: char) -> bool {
    matches!(
        c,
        '\u{200D}' | '\u{1F1E6}'..='\u{1F1FF}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{FE0F}' | '\u{20E3}'
    )
}

/// The letter a regional indicator stands for (`🇯` → `J`).
fn regional_letter(c: char) -> Option<char> {
    let offset = u32::from(c).checked_sub(0x1F1E6)?;
    if offset < 26 {
        char::from_u32(u32::from('A') + offset)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_counts_wide_combining_and_joined_text_as_drawn() {
        assert_eq!(width("/文档/第二部分"), 14);
        assert_eq!(width("e\u{301}te\u{301}"), 3);
        assert_eq!(width("abc"), 3);
    }

    #[test]
    fn cuts_are_by_display_width_and_keep_the_distinguishing_end() {
        assert_eq!(keep_start("Fix the broken links", 10), "Fix the b…");
        assert_eq!(keep_start("日本語のテキスト", 7), "日本語…");
        assert_eq!(
            keep_end("/guides/authentication/troubleshooting", 16),
            "…troubleshooting"
        );
        let two = keep_end("/文档/用户指南/第二部分", 10);
        let three = keep_end("/文档/用户指南/第三部分", 10);
        assert_ne!(two, three, "the ends tell them apart");
        assert!(width(&two) <= 10, "{two}");
        assert_eq!(two, "…/第二部分");
        assert_eq!(keep_end("/guides/🚀launch/end-a", 7), "…/end-a");
        assert_eq!(keep_end("/guides/🚀/end", 5), "…/end");
        assert_eq!(keep_end("/guides/🚀/end", 7), "…🚀/end");
        // A wide character that does not fit leaves its cell empty rather than half
        // drawn: 9 columns hold `…` and four wide characters.
        assert_eq!(keep_end("/文档/用户指南/第二部分", 9), "…第二部分");
        assert_eq!(keep_end("anything", 0), "");
    }

    #[test]
    fn a_cut_never_splits_a_cluster() {
        // "é" as e + combining acute: cut after it or before it, never between.
        let cut = keep_start("cafe\u{301}s and more", 6);
        assert_eq!(cut, "cafe\u{301}s…");
        let cut = keep_end("/x/cafe\u{301}", 5);
        assert_eq!(cut, "…cafe\u{301}");
        let family = "👨\u{200D}👩\u{200D}👧";
        assert_eq!(keep_end(&format!("/a/{family}"), 3), format!("…{family}"));
        assert_eq!(keep_end(&format!("/a/{family}"), 2), "…");
    }

    #[test]
    fn clusters_terminals_disagree_on_are_made_plain() {
        assert_eq!(steady("/plain/路径"), "/plain/路径");
        assert_eq!(steady("/jp/🇯🇵/intro"), "/jp/JP/intro");
        assert_eq!(steady("/ok/👍🏽"), "/ok/👍");
        assert_eq!(steady("/team/👨\u{200D}👩\u{200D}👧/x"), "/team/👨/x");
        assert_eq!(steady("/love/❤\u{FE0F}"), "/love/❤");
        assert_eq!(steady("/key/1\u{FE0F}\u{20E3}"), "/key/1");
        assert_eq!(steady("cafe\u{301}"), "cafe\u{301}", "accents are steady");
        for text in ["🇯🇵", "👍🏽", "👨\u{200D}👩\u{200D}👧", "❤\u{FE0F}"] {
            let plain = steady(text);
            assert!(!plain.chars().any(unsteady), "{text} → {plain}");
        }
    }
}
