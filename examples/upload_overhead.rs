//! What the remote writers cost on this side of the network: uploads to a store that
//! discards what it is sent, each request taking `DELAY_MS` (a network's latency), with
//! [`RemoteOptions::new`] (8 MiB parts, 8 at once). Prints the time and the process's peak
//! resident memory (`VmHWM`, Linux).
//!
//! ```text
//! cargo run --release --features object_store --example upload_overhead -- stream 20
//! ```
//!
//! Cases: `stream` (512 MiB through a `RemoteWriter` in 1 MiB writes: only the writer's
//! buffers are held) and `npy` (a 256 MiB `f64` array written by `write_npy` into a
//! `RemoteWriter`).

use async_trait::async_trait;
use futures::stream::BoxStream;
use ndnpy::remote::{RemoteOptions, RemoteWriter};
use ndnpy::WriteNpyExt;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, UploadPart,
};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A store whose uploads sleep `delay` per request and drop their bytes (the rest is an
/// empty in-memory store's).
#[derive(Debug)]
struct Discard {
    empty: InMemory,
    delay: Duration,
}

impl std::fmt::Display for Discard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Discard({:?})", self.delay)
    }
}

fn stored() -> PutResult {
    PutResult {
        e_tag: None,
        version: None,
        extensions: Default::default(),
    }
}

#[derive(Debug)]
struct DiscardUpload {
    delay: Duration,
}

#[async_trait]
impl MultipartUpload for DiscardUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            drop(data);
            Ok(())
        })
    }

    async fn complete(&mut self) -> Result<PutResult> {
        tokio::time::sleep(self.delay).await;
        Ok(stored())
    }

    async fn abort(&mut self) -> Result<()> {
        Ok(())
    }
}

#[async_trait]
impl ObjectStore for Discard {
    async fn put_opts(&self, _: &Path, _: PutPayload, _: PutOptions) -> Result<PutResult> {
        tokio::time::sleep(self.delay).await;
        Ok(stored())
    }

    async fn put_multipart_opts(
        &self,
        _: &Path,
        _: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        tokio::time::sleep(self.delay).await;
        Ok(Box::new(DiscardUpload { delay: self.delay }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.empty.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.empty.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.empty.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.empty.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.empty.copy_opts(from, to, options).await
    }
}

/// The process's peak resident memory in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok());
    kib.unwrap_or(f64::NAN) / 1024.0
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let case = args.next().unwrap_or_else(|| "stream".into());
    let delay = Duration::from_millis(args.next().map_or(Ok(0), |d| d.parse())?);
    let store: Arc<dyn ObjectStore> = Arc::new(Discard {
        empty: InMemory::new(),
        delay,
    });
    let before = peak_mib();
    let started;
    let done = match case.as_str() {
        "stream" => {
            let chunk = vec![7u8; 1 << 20];
            started = Instant::now();
            let mut w = RemoteWriter::create_with_options(store, "a".into(), RemoteOptions::new());
            for _ in 0..512 {
                w.write_all(&chunk)?;
            }
            w.finish()?
        }
        "npy" => {
            let a = ndarray::Array2::from_shape_fn((4096, 8192), |(i, j)| (i + j) as f64);
            started = Instant::now();
            let mut w = RemoteWriter::create(store, "a.npy".into());
            a.write_npy(&mut w)?;
            w.finish()?
        }
        other => return Err(format!("unknown case {other}: stream or npy").into()),
    };
    println!(
        "{case}, {} ms per request: {:.3} s, {} parts, peak {:.1} MiB ({:.1} MiB before)",
        delay.as_millis(),
        started.elapsed().as_secs_f64(),
        done.parts,
        peak_mib(),
        before
    );
    Ok(())
}
