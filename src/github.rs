//! GitHub's REST API as docdeck reaches it, for the service's pull requests and the CLI's
//! merge times: one HTTP client with its time limits and its name, and the token in a
//! sensitive header, never in a message.

use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::secret::Secret;

/// A client for GitHub's API and the `Authorization` header that goes with each request.
pub struct GitHubHttp {
    pub http: reqwest::Client,
    pub auth: HeaderValue,
}

/// The client and header for `token`, or why there are none.
///
/// # Errors
/// A token that cannot be sent in a header, or an HTTP set-up that failed.
pub fn connect(token: &Secret) -> Result<GitHubHttp, String> {
    crate::tls::install_crypto_provider();
    let mut auth = HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
        "GITHUB_TOKEN holds characters that cannot be sent in a header: check that it was copied whole"
            .to_owned()
    })?;
    auth.set_sensitive(true);
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .user_agent(concat!("docdeck/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|err| format!("cannot set up HTTP: {err}"))?;
    Ok(GitHubHttp { http, auth })
}
