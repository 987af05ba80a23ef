//! Which page of the docs a changed file is: Markdown files (`.md`, `.mdx`) become page
//! paths, with the docs' navigation file where there is one (Mintlify's `docs.json`, or
//! the older `mint.json`), else by their path without the extension. `index` is the
//! folder's own page: `index.mdx` is `/`, `guides/index.mdx` is `/guides`.

use serde_json::Value;

use crate::api::ChangedFile;

/// The navigation files looked for, the newer first.
pub const NAVIGATION_FILES: [&str; 2] = ["docs.json", "mint.json"];

/// A navigation file found in the repository: the folder it is in (`""` at the top, else
/// ending in `/`) and the pages it lists, as written (`guides/setup`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Navigation {
    pub folder: String,
    pub pages: Vec<String>,
}

impl Navigation {
    /// The pages listed in a navigation file's text: every string in a `pages` list
    /// anywhere under `navigation` (groups, tabs, anchors and versions nest them), and
    /// nothing when the text is not JSON.
    #[must_use]
    pub fn parse(folder: &str, text: &str) -> Self {
        let mut pages = Vec::new();
        if let Ok(value) = serde_json::from_str::<Value>(text)
            && let Some(navigation) = value.get("navigation")
        {
            collect(navigation, false, &mut pages);
        }
        Self {
            folder: folder.to_owned(),
            pages,
        }
    }
}

/// Strings met inside a `pages` list (`in_pages`), at any depth.
fn collect(value: &Value, in_pages: bool, pages: &mut Vec<String>) {
    match value {
        Value::String(page) if in_pages => {
            pages.push(page.trim_matches('/').to_owned());
        }
        Value::Array(items) => {
            for item in items {
                collect(item, in_pages, pages);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                collect(field, name == "pages", pages);
            }
        }
        _ => {}
    }
}

/// `file`'s page: with the deepest navigation file whose folder holds it, else (when the
/// repository has none) by its path. Not Markdown, or outside the folders the
/// navigation files are in: no page.
#[must_use]
pub fn page_of(file: &str, navigations: &[Navigation]) -> ChangedFile {
    let stem = [".mdx", ".md"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .filter(|stem| !stem.is_empty());
    let Some(stem) = stem else {
        return ChangedFile {
            file: file.to_owned(),
            page: None,
            found_by: None,
        };
    };
    let navigation = navigations
        .iter()
        .filter(|nav| stem.starts_with(&nav.folder))
        .max_by_key(|nav| nav.folder.len());
    let (relative, found_by) = match navigation {
        Some(nav) => {
            let relative = &stem[nav.folder.len()..];
            let listed = nav.pages.iter().any(|page| page == relative);
            (relative, if listed { "navigation" } else { "path" })
        }
        None if navigations.is_empty() => (stem, "path"),
        // The docs live in a folder with a navigation file, and this file is outside it
        // (a README beside them): no page of the site.
        None => {
            return ChangedFile {
                file: file.to_owned(),
                page: None,
                found_by: None,
            };
        }
    };
    ChangedFile {
        file: file.to_owned(),
        page: Some(page_path(relative)),
        found_by: Some(found_by.to_owned()),
    }
}

/// `guides/setup` → `/guides/setup`; `index` → `/`; `guides/index` → `/guides`.
fn page_path(relative: &str) -> String {
    let trimmed = relative
        .strip_suffix("/index")
        .or_else(|| (relative == "index").then_some(""))
        .unwrap_or(relative);
    format!("/{}", trimmed.trim_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(file: &str, navigations: &[Navigation]) -> (Option<String>, Option<String>) {
        let found = page_of(file, navigations);
        (found.page, found.found_by)
    }

    fn some(page: &str, by: &str) -> (Option<String>, Option<String>) {
        (Some(page.to_owned()), Some(by.to_owned()))
    }

    #[test]
    fn pages_nested_in_tabs_and_groups_are_read_from_docs_json() {
        let nav = Navigation::parse(
            "",
            r#"{"name": "Acme", "navigation": {"tabs": [{"tab": "Guides", "groups": [
                {"group": "Start", "pages": ["index", "guides/setup",
                    {"group": "More", "pages": ["guides/deep/more"]}]}]}]}}"#,
        );
        assert_eq!(nav.pages, ["index", "guides/setup", "guides/deep/more"]);
        let navs = [nav];
        assert_eq!(
            page("guides/setup.mdx", &navs),
            some("/guides/setup", "navigation")
        );
        assert_eq!(page("index.mdx", &navs), some("/", "navigation"));
        assert_eq!(
            page("guides/deep/more.md", &navs),
            some("/guides/deep/more", "navigation")
        );
        // A page the navigation does not list is still served at its path.
        assert_eq!(page("hidden/page.mdx", &navs), some("/hidden/page", "path"));
        assert_eq!(page("images/logo.png", &navs), (None, None));
        assert_eq!(page("docs.json", &navs), (None, None));
    }

    #[test]
    fn mint_json_lists_pages_in_groups_and_a_docs_folder_is_the_root() {
        let nav = Navigation::parse(
            "docs/",
            r#"{"navigation": [{"group": "Get started", "pages": ["quickstart", "/api/index"]}]}"#,
        );
        let navs = [nav];
        assert_eq!(
            page("docs/quickstart.mdx", &navs),
            some("/quickstart", "navigation")
        );
        assert_eq!(
            page("docs/api/index.mdx", &navs),
            some("/api", "navigation")
        );
        // Outside the docs' folder: no page of the site.
        assert_eq!(page("README.md", &navs), (None, None));
    }

    #[test]
    fn without_a_navigation_file_the_extension_is_stripped() {
        assert_eq!(page("guides/setup.mdx", &[]), some("/guides/setup", "path"));
        assert_eq!(page("index.md", &[]), some("/", "path"));
        assert_eq!(page(".mdx", &[]), (None, None));
        let broken = [Navigation::parse("", "{not json")];
        assert_eq!(page("a.mdx", &broken), some("/a", "path"));
    }
}
