//! A request body with a deadline: a client that trickles its body a byte at a time,
//! never idle long enough for the idle limit, still has to finish sending it within the
//! body limit, counted from the end of the headers. Past it, reading the body fails with
//! [`TooSlow`], which the handlers answer 408.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use http_body::Frame;
use tokio::time::Sleep;

/// The body took longer to arrive than the service allows.
#[derive(Debug, thiserror::Error)]
#[error("the request body took longer than {} s to arrive", .0.as_secs())]
pub struct TooSlow(pub Duration);

/// `body`, failing with [`TooSlow`] once `limit` has passed and it has not all arrived.
pub fn with_deadline(body: Body, limit: Duration) -> Body {
    Body::new(Deadline {
        inner: body,
        limit,
        sleep: Box::pin(tokio::time::sleep(limit)),
    })
}

/// Whether `error` (or what caused it) is a body that came too slowly, and the limit.
pub fn too_slow(error: &(dyn std::error::Error + 'static)) -> Option<Duration> {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(TooSlow(limit)) = error.downcast_ref::<TooSlow>() {
            return Some(*limit);
        }
        cause = error.source();
    }
    None
}

struct Deadline {
    inner: Body,
    limit: Duration,
    sleep: Pin<Box<Sleep>>,
}

impl http_body::Body for Deadline {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::BoxError>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(Into::into))),
            Poll::Pending if self.sleep.as_mut().poll(cx).is_ready() => {
                Poll::Ready(Some(Err(Box::new(TooSlow(self.limit)))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}
