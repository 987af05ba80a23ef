//! Showing a URL that may hold a password: the password masked, so that the URL can be
//! logged, put in errors and shown on screen.

/// What a password is shown as.
const MASK: &str = "***";

/// Masks the password of a URL (a PostgreSQL one, or a base URL given with one by
/// mistake): `user:PASSWORD@` in the authority and any `password=` query parameter. A password typed without percent-encoding may hold `/`,
/// `?`, `#` or `@`, which a URL's own rules read as the end of the authority: the user
/// information is taken to run to the last `@` whenever a `:` comes before it, so that too
/// much is masked rather than too little.
pub fn mask_password(text: &str) -> String {
    let Some(scheme_end) = text.find("://").map(|at| at + 3) else {
        return text.to_owned();
    };
    let rest = &text[scheme_end..];
    let mut out = text[..scheme_end].to_owned();
    let tail = match rest.rfind('@').map(|at| (at, rest[..at].find(':'))) {
        Some((at, Some(colon))) => {
            out.push_str(&rest[..colon]);
            out.push(':');
            out.push_str(MASK);
            &rest[at..]
        }
        _ => {
            let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(authority_end);
            out.push_str(authority);
            tail
        }
    };
    let (host, tail) = tail.split_at(tail.find(['/', '?', '#']).unwrap_or(tail.len()));
    out.push_str(host);
    match tail.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => {
                        format!("{key}={MASK}")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            out.push_str(&params.join("&"));
        }
        None => out.push_str(tail),
    }
    out
}
