//! An agent's output, kept per turn in a file up to a limit: the rest is counted, dropped
//! and noted with a marker, so a chatty or runaway agent cannot fill the disk.

use std::path::Path;

use tokio::fs::File;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::sync::mpsc;

/// Output kept per turn (standard output and error together).
pub const OUTPUT_LIMIT: u64 = 1024 * 1024;

/// What was kept of a turn's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    pub kept: u64,
    pub dropped: u64,
}

/// Reads `stream` in chunks and hands them to `sink` until the end or until `sink` is gone.
pub async fn pump(mut stream: impl AsyncRead + Unpin, sink: mpsc::Sender<Vec<u8>>) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if sink.send(buffer[..n].to_vec()).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes the chunks of `chunks` to `path` until `limit` bytes are written, counts the
/// rest, and ends the file with a marker when anything was dropped.
pub async fn collect(
    path: &Path,
    mut chunks: mpsc::Receiver<Vec<u8>>,
    limit: u64,
) -> std::io::Result<Kept> {
    // A file that cannot be made or written does not stop the reading: the agent must
    // never block on a full pipe, or die of a closed one, because its output is not kept.
    let mut broken = None;
    let mut file = match open(path).await {
        Ok(file) => Some(file),
        Err(err) => {
            broken = Some(err);
            None
        }
    };
    let mut kept = Kept {
        kept: 0,
        dropped: 0,
    };
    while let Some(chunk) = chunks.recv().await {
        let room = limit.saturating_sub(kept.kept);
        let len = chunk.len() as u64;
        let take = if broken.is_some() { 0 } else { room.min(len) };
        if let (true, Some(writer)) = (take > 0, file.as_mut()) {
            // `take` is at most the chunk's length, which is a usize.
            let end = usize::try_from(take).unwrap_or(chunk.len());
            if let Err(err) = writer.write_all(&chunk[..end]).await {
                broken = Some(err);
            }
            kept.kept += take;
        }
        kept.dropped += len - take;
    }
    if let Some(err) = broken {
        return Err(err);
    }
    let Some(mut file) = file else {
        return Ok(kept);
    };
    if kept.dropped > 0 {
        let marker = format!(
            "\n[docdeck: output cut here: {} more bytes were not kept (limit {} bytes per turn)]\n",
            kept.dropped, limit
        );
        file.write_all(marker.as_bytes()).await?;
    }
    file.flush().await?;
    Ok(kept)
}

/// The turn's log, readable by this user only (0600) in a folder that is 0700: an
/// agent's output may quote the docs' secrets or the prompt.
async fn open(path: &Path) -> std::io::Result<File> {
    if let Some(parent) = path.parent() {
        crate::sqlite::create_private_dir(parent)?;
    }
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    let file = options.open(path).await?;
    // A log left by an older docdeck keeps its mode when truncated: make it private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))
            .await?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn output_past_the_limit_is_counted_and_marked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("turn-1.log");
        let (sender, receiver) = mpsc::channel(4);
        let writer = tokio::spawn(async move {
            for _ in 0..3 {
                sender.send(vec![b'x'; 40]).await.unwrap();
            }
        });
        let kept = collect(&path, receiver, 100).await.unwrap();
        writer.await.unwrap();
        assert_eq!(
            kept,
            Kept {
                kept: 100,
                dropped: 20
            }
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(&"x".repeat(100)));
        assert!(text.contains("20 more bytes were not kept"), "{text}");
    }

    #[tokio::test]
    async fn output_that_cannot_be_kept_is_still_read_to_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let (sender, receiver) = mpsc::channel(1);
        let writer = tokio::spawn(async move {
            for _ in 0..10 {
                sender.send(vec![b'x'; 10]).await.unwrap();
            }
        });
        let err = collect(&blocker.join("turn-1.log"), receiver, 100).await;
        assert!(err.is_err());
        writer.await.expect("every chunk was taken");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn logs_are_0600_in_folders_that_are_0700() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job").join("turn-1.log");
        let (sender, receiver) = mpsc::channel(1);
        drop(sender);
        collect(&path, receiver, 100).await.unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("job")), 0o700);
    }

    #[tokio::test]
    async fn output_within_the_limit_is_kept_whole_without_a_marker() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turn-1.log");
        let (sender, receiver) = mpsc::channel(4);
        sender.send(b"hello\n".to_vec()).await.unwrap();
        drop(sender);
        let kept = collect(&path, receiver, 100).await.unwrap();
        assert_eq!(kept.dropped, 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "hello\n");
    }
}
