//! Which requests are page views, and the one path each page is counted under.
//!
//! A page is a document: `/`, a path whose last segment has no extension, or one of the
//! document extensions in [`DOCUMENT_EXTENSIONS`]. Anything else (a download, an asset, a
//! feed poll) is not a view, so a log's `.jar`, `.deb` or `?flav=rss20` never reads as a
//! page someone read.

/// Why a request is not a page view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NotAView {
    /// Not a `GET` or `HEAD`.
    Method,
    /// A redirect or an error (anything but 2xx and 304).
    Status,
    /// A stylesheet, script, image, font, source map, or a framework's internal path.
    Asset,
    /// A file that is not a document: a download (`.jar`, `.deb`, `.pdf`), a text or
    /// configuration file, source code.
    Download,
    /// A feed poll: a query asking for RSS or Atom, or a path that names a feed.
    Feed,
}

/// A page view's path, and whether it fetched Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageView {
    pub path: String,
    pub markdown: bool,
}

/// The extensions of documents, the only files (beside paths with no extension) counted
/// as pages.
pub const DOCUMENT_EXTENSIONS: &[&str] = &[
    "html", "htm", "xhtml", "shtml", "php", "asp", "aspx", "jsp", "md", "mdx",
];
/// Extensions of what a page loads to show itself (counted as assets, not downloads).
const ASSET_EXTENSIONS: &[&str] = &[
    "css",
    "js",
    "mjs",
    "cjs",
    "map",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "svg",
    "ico",
    "webp",
    "avif",
    "bmp",
    "woff",
    "woff2",
    "ttf",
    "otf",
    "eot",
    "wasm",
    "webmanifest",
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
/// Path endings of feeds.
const FEED_ENDINGS: &[&str] = &["/feed", "/rss", "/atom", ".rss", ".atom", ".xml"];
/// Files that are Markdown for agents although they do not end in `.md`.
const MARKDOWN_FILES: &[&str] = &["llms.txt", "llms-full.txt"];
/// The longest text after a last dot that is taken for an extension.
const EXTENSION_MAX: usize = 12;

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
/// page. The query and fragment are dropped (after a feed query is refused), the path
/// percent-decoded, and a trailing `/` and `/index` folded, with `.html`, `.htm`, `.md`
/// and `.mdx` where what remains has no extension: `/guide/`, `/guide/index.html` and
/// `/guide.md` are one page, `/guide`, while `/slides.pdf.html` stays as it is.
pub fn page_of(target: &str) -> Result<PageView, NotAView> {
    let target = strip_origin(target);
    let (path, query) = match target.split('#').next().unwrap_or_default().split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target.split('#').next().unwrap_or_default(), None),
    };
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
    {
        return Err(NotAView::Asset);
    }
    let trimmed = lower.trim_end_matches('/');
    if query.is_some_and(asks_for_feed) || FEED_ENDINGS.iter().any(|end| trimmed.ends_with(end)) {
        return Err(NotAView::Feed);
    }
    let markdown_file = is_markdown_file(&lower);
    let ext = extension(&lower);
    match ext {
        _ if markdown_file => {}
        None => {}
        Some(ext) if DOCUMENT_EXTENSIONS.contains(&ext) => {}
        Some(ext) if ASSET_EXTENSIONS.contains(&ext) => return Err(NotAView::Asset),
        Some(_) => return Err(NotAView::Download),
    }
    let markdown = markdown_file || ext == Some("md");
    Ok(PageView {
        path: fold(&path),
        markdown,
    })
}

/// The extension of a path's last segment, if it has one: letters and digits after its
/// last dot, with at least one letter (`/v1.2` and `/2015.05.17` have none).
fn extension(lower: &str) -> Option<&str> {
    let name = lower.trim_end_matches('/').rsplit('/').next()?;
    let (_, ext) = name.rsplit_once('.')?;
    let plausible = !ext.is_empty()
        && ext.len() <= EXTENSION_MAX
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext.bytes().any(|b| b.is_ascii_alphabetic());
    plausible.then_some(ext)
}

/// Whether a query string asks for a feed: `flav=rss…`, `flav=atom`, `feed=…`,
/// `format=rss` or `format=atom`.
fn asks_for_feed(query: &str) -> bool {
    query.split('&').any(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = value.to_ascii_lowercase();
        match key.to_ascii_lowercase().as_str() {
            "flav" => value.starts_with("rss") || value == "atom",
            "feed" => pair.contains('='),
            "format" => value == "rss" || value == "atom",
            _ => false,
        }
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

/// One path per page: `/a/`, `/a/index`, `/a.html`, `/a.md`, `/a/index.mdx` are `/a`. An
/// ending is folded only where what remains has no extension of its own, so
/// `/slides.pdf.html` is not listed as `/slides.pdf`.
fn fold(path: &str) -> String {
    let mut path = path.trim_end_matches('/');
    let lower = path.to_ascii_lowercase();
    for ending in [".html", ".htm", ".mdx", ".md"] {
        if let Some(rest) = lower.strip_suffix(ending) {
            if extension(rest).is_none() {
                path = &path[..rest.len()];
            }
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
        ] {
            assert_eq!(page_of(target), Err(NotAView::Asset), "{target}");
        }
        assert_eq!(page_of("/robots.txt"), Err(NotAView::Download));
        assert_eq!(page_of("/sitemap.xml"), Err(NotAView::Feed));
        assert_eq!(check_request("GET", 200), Ok(()));
        assert_eq!(check_request("head", 304), Ok(()));
        assert_eq!(check_request("POST", 200), Err(NotAView::Method));
        assert_eq!(check_request("GET", 301), Err(NotAView::Status));
        assert_eq!(check_request("GET", 404), Err(NotAView::Status));
    }

    /// Paths from a real blog's access log (tests/fixtures/real): downloads there were
    /// counted as pages before.
    #[test]
    fn only_documents_are_pages() {
        for target in [
            "/files/logstash/logstash-1.3.2-monolithic.jar",
            "/files/xdotool/xdotool_2.20110530.1_amd64.deb",
            "/files/win/setup.exe",
            "/blog/geekery/xvfb-firefox.log",
            "/files/nginx.conf",
            "/projects/xdotool/test.py",
            "/style/rss.xsl",
            "/files/flash.swf",
            "/presentations/slides.pdf",
            "/files/notes.txt",
            "/archive.tar.gz",
        ] {
            assert_eq!(page_of(target), Err(NotAView::Download), "{target}");
        }
        for (target, path) in [
            ("/", "/"),
            (
                "/blog/geekery/ssl-latency.html",
                "/blog/geekery/ssl-latency",
            ),
            ("/projects/xdotool/", "/projects/xdotool"),
            ("/page.htm", "/page"),
            ("/page.xhtml", "/page.xhtml"),
            ("/page.shtml", "/page.shtml"),
            ("/index.php", "/index.php"),
            ("/page.asp", "/page.asp"),
            ("/page.ASPX", "/page.ASPX"),
            ("/page.jsp", "/page.jsp"),
            (
                "/presentations/puppet/slides.pdf.html",
                "/presentations/puppet/slides.pdf.html",
            ),
            ("/releases/v1.2", "/releases/v1.2"),
            ("/blog/2015.05.17", "/blog/2015.05.17"),
            ("/blog/2015.05.17.html", "/blog/2015.05.17"),
        ] {
            assert_eq!(page(target), (path.to_owned(), false), "{target}");
        }
    }

    #[test]
    fn feed_polls_are_not_views() {
        for target in [
            "/?flav=rss20",
            "/blog/tags/puppet?flav=rss20",
            "/blog/tags/puppet?flav=atom",
            "/?FLAV=RSS",
            "/blog?feed=rss2",
            "/blog?p=1&format=atom",
            "/blog?format=RSS",
            "/feed",
            "/blog/feed/",
            "/rss",
            "/atom",
            "/index.rss",
            "/blog.atom",
            "/sitemap.xml",
        ] {
            assert_eq!(page_of(target), Err(NotAView::Feed), "{target}");
        }
        for target in [
            "/?flav=html",
            "/blog?format=json",
            "/feedback",
            "/rss-guide",
        ] {
            assert!(page_of(target).is_ok(), "{target}");
        }
    }
}
