//! The service's connection loop: HTTP/1.1 on hyper with a limit on the time to send a
//! request's headers (the first one and each next one on a kept-alive connection), an idle
//! limit (no byte either way), a limit on the time to send a body (however steadily it
//! trickles), and a cap on open connections. A slow or silent client is
//! closed instead of holding a connection and a task for ever; past the cap a new
//! connection is answered 503 and closed.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, oneshot};
use tokio::time::{Instant, Sleep};

use super::http::ClientIp;

/// How long clients may take and how many may be connected at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// From the first byte awaited of a request to the end of its headers.
    pub header_timeout: Duration,
    /// With no byte read or written, a connection is closed.
    pub idle_timeout: Duration,
    /// From the end of a request's headers to the end of its body, however steadily it
    /// trickles in; a slower body is answered 408.
    pub body_timeout: Duration,
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            max_connections: 256,
        }
    }
}

/// The answer to a connection past the cap.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 65\r\n\r\n{\"error\":\"Too many open connections to this service; retry soon\"}";

/// Serves `app` on `listener` until `stop`, then lets the requests in flight finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    mut stop: oneshot::Receiver<()>,
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of descriptors, or a connection reset before it was accepted:
                    // wait a little instead of spinning.
                    tracing::warn!("cannot accept a connection: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            tokio::spawn(turn_away(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Idle::new(stream, limits.idle_timeout));
        let service =
            hyper::service::service_fn(request_handler(app.clone(), peer, limits.body_timeout));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout);
        let connection = graceful.watch(builder.serve_connection(io, service));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%peer, "connection ended: {err}");
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// What one request's answer is awaited as.
type Answer = Pin<
    Box<dyn Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send>,
>;

/// Runs `app` for one request of `peer`, noting where it came from, with its body given
/// `body_timeout` to arrive.
fn request_handler(
    app: Router,
    peer: SocketAddr,
    body_timeout: Duration,
) -> impl Fn(hyper::Request<Incoming>) -> Answer + Clone {
    move |request: hyper::Request<Incoming>| {
        let mut request =
            request.map(|body| super::http::deadline::with_deadline(Body::new(body), body_timeout));
        request.extensions_mut().insert(ClientIp(peer.ip()));
        Box::pin(tower::ServiceExt::oneshot(app.clone(), request))
    }
}

/// Says 503 to a connection past the cap, without reading it, and closes it.
async fn turn_away(mut stream: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(BUSY).await;
        let _ = stream.shutdown().await;
    })
    .await;
}

/// A stream that fails with `TimedOut` when nothing has been read or written for its
/// limit while a read or a write waits.
struct Idle<S> {
    inner: S,
    limit: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> Idle<S> {
    fn new(inner: S, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            deadline: Box::pin(tokio::time::sleep(limit)),
        }
    }

    fn moved(&mut self) {
        let next = Instant::now() + self.limit;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }

    /// A poll of the connection as the caller sees it: bytes that went through (`moved`)
    /// put the deadline off; a wait past the deadline ends the connection.
    fn after<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
        moved: bool,
    ) -> Poll<io::Result<T>> {
        match poll {
            Poll::Ready(result) => {
                if moved {
                    self.moved();
                }
                Poll::Ready(result)
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(idle_error())),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn idle_error() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the connection was idle too long")
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let moved = buf.filled().len() > before;
        self.after(cx, poll, moved)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        self.after(cx, poll, moved)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        self.after(cx, poll, moved)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
