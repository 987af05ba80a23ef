//! The process's TLS set-up, below both faces: the client and the local service (its
//! agent's calls to a forge) install the same crypto provider, once.

use std::sync::Once;

/// Installs the TLS crypto provider (ring) for the process, once. Every HTTP client built
/// with `reqwest` needs it; `api::Client::new` calls it itself.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is already installed, which is what we want anyway.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
