//! Which requests are page views, and the one path each page is counted under.

/// Why a request is not a page view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NotAView {
    /// Not a `GET` or `HEAD`.
    Method,
    /// A redirect or an error (anything but 2xx and 304).
    Status,
    /// A stylesheet, script, image, font, source map, or a framework's internal path.
    Asset,
}

/// A page view's path, and whether it fetched Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageView {
    pub path: String,
    pub markdown: bool,
}

/// File endings of assets, never pages.
const ASSET_ENDINGS: &[&str] = &[
    ".css",
    ".js",
    ".mjs",
    ".cjs",
    ".map",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".ico",
    ".webp",
    ".avif",
    ".bmp",
    ".woff",
    ".woff2",
    ".ttf",
    ".otf",
    ".eot",
    ".mp4",
    ".webm",
    ".mp3",
    ".wasm",
    ".json",
    ".xml",
    ".webmanifest",
    ".zip",
    ".gz",
    ".pdf",
];
/// Path prefixes of framework and server internals.
const ASSET_PREFIXES: &[&str] = &[
    "/_next/",
    "/_mintlify/",
    "/_static/",
    "/_vercel/",
    "/cdn-cgi/",
    "/.well-known/",
    "/static/",
    "/assets/",
    "/favicon",
];
/// Files that are Markdown for agents although they do not end in `.md`.
const MARKDOWN_FILES: &[&str] = &["llms.txt", "llms-full.txt"];

/// Whether a request with this method and status can be a view.
pub fn check_request(method: &str, status: u16) -> Result<(), NotAView> {
    if !(method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD")) {
        return Err(NotAView::Method);
    }
    if (200..300).contains(&status) || status == 304 {
        Ok(())
    } else {
        Err(NotAView::Status)
    }
}

/// The page a request target (`/a/b?q#f`, or an absolute URL) views, or why it is not a
/// page. The query and fragment are dropped, the path percent-decoded, and a trailing
/// `/`, `/index`, `.html`, `.md` and `.mdx` folded, so `/guide/`, `/guide/index.html` and
/// `/guide.md` are one page, `/guide`.
pub fn page_of(target: &str) -> Result<PageView, NotAView> {
    let path = strip_origin(target);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let path = percent_decode(path);
    let path = if path.starts_with('/') {
        path
    } else {
        format!("/{path}")
    };
    let lower = path.to_ascii_lowercase();
    if ASSET_PREFIXES
        .iter()
        .any(|prefix| lower.starts_with(prefix))
        || ASSET_ENDINGS.iter().any(|ending| lower.ends_with(ending))
        || (lower.ends_with(".txt") && !is_markdown_file(&lower))
    {
        return Err(NotAView::Asset);
    }
    let markdown = lower.ends_with(".md") || is_markdown_file(&lower);
    Ok(PageView {
        path: fold(&path),
        markdown,
    })
}

fn is_markdown_file(lower: &str) -> bool {
    let name = lower.rsplit('/').next().unwrap_or_default();
    MARKDOWN_FILES.contains(&name)
}

/// `https://host/p` → `/p`; a path stays as it is.
fn strip_origin(target: &str) -> &str {
    for scheme in ["https://", "http://"] {
        if let Some(rest) = target.strip_prefix(scheme) {
            return rest.find('/').map_or("/", |at| &rest[at..]);
        }
    }
    target
}

/// `%XX` escapes become bytes; a malformed escape stays as written; invalid UTF-8 becomes
/// U+FFFD.
fn percent_decode(path: &str) -> String {
    if !path.contains('%') {
        return path.to_owned();
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| char::from(*b).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One path per page: `/a/`, `/a/index`, `/a.html`, `/a.md`, `/a/index.mdx` are `/a`.
fn fold(path: &str) -> String {
    let mut path = path.trim_end_matches('/');
    let lower = path.to_ascii_lowercase();
    for ending in [".html", ".htm", ".mdx", ".md"] {
        if lower.ends_with(ending) && !MARKDOWN_FILES.iter().any(|f| lower.ends_with(f)) {
            path = &path[..path.len() - ending.len()];
            break;
        }
    }
    if path.to_ascii_lowercase().ends_with("/index") {
        path = &path[..path.len() - 6];
    }
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        "/".to_owned()
    } else {
        path.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(target: &str) -> (String, bool) {
        let view = page_of(target).unwrap();
        (view.path, view.markdown)
    }

    #[test]
    fn one_path_per_page() {
        for target in [
            "/guide",
            "/guide/",
            "/guide/index",
            "/guide/index.html",
            "/guide.html",
            "/guide.mdx",
            "/guide?tab=2",
            "/guide#setup",
            "https://docs.acme.test/guide/",
            "/gu%69de",
            "/GUIDE/INDEX.HTML",
        ] {
            let (path, markdown) = page(target);
            assert_eq!(path.to_ascii_lowercase(), "/guide", "{target}");
            assert!(!markdown, "{target}");
        }
        assert_eq!(page("/"), ("/".to_owned(), false));
        assert_eq!(page("/index.html"), ("/".to_owned(), false));
        assert_eq!(page("/caf%C3%A9/"), ("/café".to_owned(), false));
        assert_eq!(page("/100%"), ("/100%".to_owned(), false));
    }

    #[test]
    fn markdown_fetches_are_marked() {
        assert_eq!(page("/guide.md"), ("/guide".to_owned(), true));
        assert_eq!(page("/guide/index.md?x=1"), ("/guide".to_owned(), true));
        assert_eq!(page("/llms.txt"), ("/llms.txt".to_owned(), true));
        assert_eq!(page("/llms-full.txt"), ("/llms-full.txt".to_owned(), true));
        assert_eq!(page("/skill.md"), ("/skill".to_owned(), true));
    }

    #[test]
    fn assets_and_non_views_are_refused() {
        for target in [
            "/style.css",
            "/app.js?v=3",
            "/app.js.map",
            "/logo.png",
            "/font.woff2",
            "/_next/static/chunks/x",
            "/favicon.ico",
            "/robots.txt",
            "/sitemap.xml",
        ] {
            assert_eq!(page_of(target), Err(NotAView::Asset), "{target}");
        }
        assert_eq!(check_request("GET", 200), Ok(()));
        assert_eq!(check_request("head", 304), Ok(()));
        assert_eq!(check_request("POST", 200), Err(NotAView::Method));
        assert_eq!(check_request("GET", 301), Err(NotAView::Status));
        assert_eq!(check_request("GET", 404), Err(NotAView::Status));
    }
}
